# fabsim build. `make` builds build/fabsim, build/libfabsim.a and the man page
# build/fabsim.1; `make test` runs every test and ends with "N passed, N
# failed"; `make check` runs them under ASan+UBSan; `make bench` prints the
# benchmark figures; `make demo` runs every course lab and writes the report;
# `make validate` prints fabsim against published measurements
# (docs/validation.md); `make install PREFIX=/usr/local [DESTDIR=...]`
# installs. Missing Debian packages: `make deps` installs what the build and
# the demo need (libfyaml, node/npm for the chart library), `make deps-test`
# what only the tests need (cmocka, python3, Chromium, tshark, OpenSM, ibsim,
# valgrind, cppcheck, python3-jsonschema); the targets run them first when
# something is missing.

CC      ?= cc
BUILD   ?= build
OPT     ?= -O2 -g
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wundef -Werror
CFLAGS  += -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(OPT) $(WARN) -Isrc $(EXTRA_CFLAGS)
LDLIBS  := -lfyaml -lz -lm
TEST_LDLIBS := -lcmocka

SRCS    := $(filter-out src/cli/main.c src/cli/main_mpi.c,$(shell find src -name '*.c' | sort))
OBJS    := $(SRCS:%.c=$(BUILD)/%.o)
TESTS_SRC := $(shell find tests -name 'test_*.c' | sort)
TESTS   := $(TESTS_SRC:%.c=$(BUILD)/%)
# Chakra execution traces (docs/inputs.md): C code generated from
# src/workload/et_def.proto by protoc-c at build time (never committed); only
# src/workload/et.c includes it.
GEN_PB  := $(BUILD)/gen/workload/et_def.pb-c
OBJS    += $(GEN_PB).o
LDLIBS  += -lprotobuf-c
BENCH_SRC := $(shell find bench -name '*.c' 2>/dev/null | sort)
BENCHES := $(BENCH_SRC:%.c=$(BUILD)/%)

DEPS_STAMP := $(BUILD)/.deps-ok
TEST_DEPS_STAMP := $(BUILD)/.deps-test-ok
# The report's chart library (vega, Vega-Lite, vega-embed) and Markdown renderer
# (marked; `npm ci --omit=dev`,
# all the demo needs) and, for the tests, the browser test's playwright-core
# too (`npm ci`), pinned by report/web/package-lock.json. A full install also
# counts as a chart install; a chart-only install removes the test stamp.
CHART_STAMP := report/web/node_modules/.fabsim-charts
WEB_STAMP := report/web/node_modules/.fabsim-test
NPM_CI := npm ci --no-audit --no-fund --loglevel=error

PREFIX  ?= /usr/local
DESTDIR ?=

.PHONY: all deps deps-test test check bench demo clean lint fmt fuzz install uninstall validate screenshot mpi

all: $(BUILD)/fabsim $(BUILD)/fabsim.1

# Installs what the build needs from Debian when it is missing. Headers are the
# test: a fresh Debian 12 machine has gcc and make but not these -dev packages.
$(DEPS_STAMP):
	@sh tools/deps.sh build
	@mkdir -p $(BUILD) && touch $@

$(TEST_DEPS_STAMP): | $(DEPS_STAMP)
	@sh tools/deps.sh test
	@mkdir -p $(BUILD) && touch $@

$(CHART_STAMP): report/web/package.json report/web/package-lock.json | $(DEPS_STAMP)
	@if [ -f $(WEB_STAMP) ] && [ $(WEB_STAMP) -nt report/web/package.json ] && \
	    [ $(WEB_STAMP) -nt report/web/package-lock.json ]; then :; else \
	  echo "cd report/web && $(NPM_CI) --omit=dev"; cd report/web && $(NPM_CI) --omit=dev; fi
	@touch $@

$(WEB_STAMP): report/web/package.json report/web/package-lock.json | $(TEST_DEPS_STAMP)
	cd report/web && $(NPM_CI)
	@touch $@ $(CHART_STAMP)

deps:
	@rm -f $(DEPS_STAMP)
	@$(MAKE) --no-print-directory $(DEPS_STAMP) $(CHART_STAMP)

deps-test:
	@rm -f $(TEST_DEPS_STAMP)
	@$(MAKE) --no-print-directory $(TEST_DEPS_STAMP) $(WEB_STAMP)

$(BUILD)/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(GEN_PB).c $(GEN_PB).h: src/workload/et_def.proto | $(DEPS_STAMP)
	@mkdir -p $(dir $(GEN_PB))
	protoc-c --proto_path=src/workload --c_out=$(dir $(GEN_PB)) $<

$(GEN_PB).o: $(GEN_PB).c $(GEN_PB).h
	$(CC) $(CFLAGS) -I$(dir $(GEN_PB)) -c $< -o $@

$(BUILD)/src/workload/et.o: CFLAGS += -I$(BUILD)/gen
$(BUILD)/src/workload/et.o: $(GEN_PB).h

$(BUILD)/libfabsim.a: $(OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/fabsim: $(BUILD)/src/cli/main.o $(BUILD)/libfabsim.a
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# One simulation on several processes (docs/parallel.md): build/fabsim-mpi,
# the only binary that links MPI (src/cli/main_mpi.c wraps it), built with mpicc
# from Debian's Open MPI (`make deps-test` installs it). `make test` builds it
# when mpicc is there; build/fabsim never needs MPI.
MPICC ?= mpicc
HAVE_MPICC := $(shell command -v $(MPICC) 2>/dev/null)
MPI_BIN := $(if $(HAVE_MPICC),$(BUILD)/fabsim-mpi)
mpi: $(BUILD)/fabsim-mpi

$(BUILD)/fabsim-mpi: src/cli/main_mpi.c $(BUILD)/libfabsim.a
	$(MPICC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/fabsim.1: $(BUILD)/fabsim
	$(BUILD)/fabsim help --man > $@

$(BUILD)/tests/%: tests/%.c $(BUILD)/libfabsim.a | $(TEST_DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -Itests $< -o $@ $(BUILD)/libfabsim.a $(TEST_LDLIBS) $(LDLIBS)

$(BUILD)/bench/%: bench/%.c $(BUILD)/libfabsim.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $< -o $@ $(BUILD)/libfabsim.a $(LDLIBS)

test: $(BUILD)/fabsim $(BUILD)/fabsim.1 $(TESTS) $(MPI_BIN) $(WEB_STAMP)
	@sh tests/run.sh $(BUILD)

# ASan + UBSan build of everything, in its own folder.
check:
	@$(MAKE) --no-print-directory BUILD=build-check OPT="-O1 -g -fno-omit-frame-pointer -DFABSIM_DEBUG" \
	  EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" \
	  LDFLAGS="-fsanitize=address,undefined" test
	@if command -v clang >/dev/null && printf 'int LLVMFuzzerTestOneInput(const char *d, long n) { (void)d; (void)n; return 0; }\n' | \
	    clang -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null; then \
	  $(MAKE) --no-print-directory fuzz FUZZ_TIME=8; \
	  else echo "skip: the CI-sized fuzz run (no clang with libFuzzer; make deps-test installs it)"; fi

# Every row of docs/validation.md: runs its scenarios, prints the table with
# pass/fail against each row's tolerance, writes out/validation/validation.json
# and, when `make demo` has written out/labs, adds the report's Validation page.
validate: $(BUILD)/fabsim
	@python3 tools/validate.py --bin $(BUILD)/fabsim -o out/validation \
	  $$([ -f out/labs/report.html ] && echo --report out/labs)

bench: $(BUILD)/fabsim $(BENCHES) | $(TEST_DEPS_STAMP)
	@sh bench/run.sh $(BUILD) $(COUNT)

demo: $(BUILD)/fabsim $(CHART_STAMP)
	@$(BUILD)/fabsim labs -o out/labs
	@echo "Open $(CURDIR)/out/labs/report.html in a browser (self-contained, works offline)."

# docs/report.png (the README's picture) from the current labs report, taken
# by headless Chromium (report/web/check-report.js, as tests/report uses it).
screenshot: $(BUILD)/fabsim $(WEB_STAMP)
	@$(BUILD)/fabsim labs -o out/labs -q
	@node report/web/check-report.js out/labs/report.html docs/report.png

# The layering of docs/architecture.md (tools/layers.py: no include or call
# up a layer, no module circle across folders but net/'s own, and net/ with
# its strategies naming nothing above them), cppcheck (suppressions in
# tools/cppcheck.supp, each justified there) and a -Wconversion build
# (-Werror: it is clean; cast where a narrowing is meant).
lint: | $(TEST_DEPS_STAMP)
	python3 tools/layers.py --layers
	python3 tools/layers.py --forbid net,cc,flowctl,route:innet,coll,par,config,stats,cli,model
	cppcheck --quiet --enable=warning,performance,portability --error-exitcode=1 \
	  --suppressions-list=tools/cppcheck.supp -Isrc src
	$(MAKE) --no-print-directory BUILD=build-lint EXTRA_CFLAGS="-Wconversion" all
	@# The committed .clang-format on every tracked C file (never the JavaScript).
	git ls-files '*.c' '*.h' | xargs clang-format --dry-run -Werror

# libFuzzer (clang 14; `make fuzz`, and briefly in `make check`): builds the
# library with -fsanitize=fuzzer-no-link,address,undefined in build-fuzz/ and
# fuzzes six targets FUZZ_TIME seconds each: the scenario loader
# (fuzz_config), the report's JSON reader and embedding (fuzz_jread), load +
# build + run of small models (fuzz_model), the topology-file readers (YAML,
# ibnetdiscover, ibsim: fuzz_tfile), the Chakra trace reader (fuzz_chakra)
# and the lab rules, one expression and a whole lab.yaml (fuzz_lab). Corpora
# (seeded from scenarios/ and tests/report/fixture) and crash artefacts stay under
# build-fuzz/ (crash-*, timeout-*: build-fuzz/artifacts/); exit 0 on a clean
# run. Leak detection is off (ASAN_OPTIONS and -detect_leaks=0): libfyaml
# 0.7.12 leaks on single-quoted scalars holding many '' pairs (a known bug of
# that release, not ours), and LeakSanitizer's report at exit would turn a
# clean run into exit 2; ASan still catches every out-of-bounds access and use
# after free.
FUZZ_TIME ?= 60
FUZZ_TARGETS := fuzz_config fuzz_jread fuzz_model fuzz_tfile fuzz_chakra fuzz_lab
FUZZ_SAN  := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
fuzz: | $(DEPS_STAMP)
	@command -v clang >/dev/null || { echo "make fuzz needs clang (make deps installs it)"; exit 2; }
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang OPT="-O1 -g" \
	  EXTRA_CFLAGS="$(FUZZ_SAN)" build-fuzz/libfabsim.a
	@mkdir -p build-fuzz/artifacts $(FUZZ_TARGETS:%=build-fuzz/corpus-%)
	@for f in $$(find scenarios tests/report/fixture -name '*.yaml'); do \
	  cp "$$f" build-fuzz/corpus-fuzz_config/$$(echo "$$f" | tr / -); \
	  cp "$$f" build-fuzz/corpus-fuzz_model/$$(echo "$$f" | tr / -); done
	@printf '{"a":[1,-0.5e3,true,false,null],"s":"x<\\u2028\\ud83d\\ude00"}' \
	  >build-fuzz/corpus-fuzz_jread/seed.json
	@i=0; for f in scenarios/examples/inputs/*.yml scenarios/examples/inputs/*.txt; do i=$$((i + 1)); \
	  for k in 0 1 2 3; do { printf "\\$$(printf %o $$k)"; cat "$$f"; } \
	    >build-fuzz/corpus-fuzz_tfile/seed-$$i-$$k; done; done
	@cp scenarios/examples/inputs/chakra_step/*.et build-fuzz/corpus-fuzz_chakra/
	@for f in $$(find scenarios/labs tests/report/fixture -name lab.yaml); do \
	  cp "$$f" build-fuzz/corpus-fuzz_lab/$$(echo "$$f" | tr / -); done
	@printf '%s' '-(done_us() + 2) * link_max("utilization", "leaf-spine") >= !0 && m || abs(-1)' \
	  >build-fuzz/corpus-fuzz_lab/expr.txt
	@for t in $(FUZZ_TARGETS); do \
	  clang -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O1 -g $(WARN) -Isrc -Ifuzz \
	    -fsanitize=fuzzer,address,undefined fuzz/$$t.c build-fuzz/libfabsim.a \
	    $(LDLIBS) -o build-fuzz/$$t || exit 1; \
	done
	@for t in $(FUZZ_TARGETS); do \
	  echo "== $$t ($(FUZZ_TIME) s)"; \
	  ASAN_OPTIONS=detect_leaks=0 build-fuzz/$$t -max_total_time=$(FUZZ_TIME) -detect_leaks=0 \
	    -max_len=8192 -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=build-fuzz/artifacts/$$t- build-fuzz/corpus-$$t 2>build-fuzz/$$t.log; \
	  rc=$$?; tail -n 12 build-fuzz/$$t.log; \
	  [ $$rc -eq 0 ] || { echo "$$t: failed (exit $$rc); see build-fuzz/$$t.log and build-fuzz/artifacts/"; exit 1; }; \
	done

# The usual layout under $(DESTDIR)$(PREFIX): the binary, the library and its
# headers (include/fabsim/<module>/*.h: compile with -I$(PREFIX)/include/fabsim),
# the man page, and in share/fabsim the labs, the examples, the labs' texts
# and the report's web assets (report.js, report.css, the chart library's
# built files and licences), which fabsim finds relative to its own binary
# (bin/../share/fabsim; FABSIM_WEB_DIR and FABSIM_DATA_DIR override).
SHARE := $(DESTDIR)$(PREFIX)/share/fabsim
CHART_FILES := vega/build/vega.min.js vega/LICENSE vega-lite/build/vega-lite.min.js \
  vega-lite/LICENSE vega-embed/build/vega-embed.min.js vega-embed/LICENSE \
  marked/lib/marked.umd.js marked/LICENSE.md
install: $(BUILD)/fabsim $(BUILD)/libfabsim.a $(BUILD)/fabsim.1 $(CHART_STAMP)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib \
	  $(DESTDIR)$(PREFIX)/share/man/man1 $(SHARE)/web $(SHARE)/docs/labs
	install -m 755 $(BUILD)/fabsim $(DESTDIR)$(PREFIX)/bin/fabsim
	if [ -x $(BUILD)/fabsim-mpi ]; then install -m 755 $(BUILD)/fabsim-mpi $(DESTDIR)$(PREFIX)/bin/fabsim-mpi; fi
	install -m 644 $(BUILD)/libfabsim.a $(DESTDIR)$(PREFIX)/lib/libfabsim.a
	install -m 644 $(BUILD)/fabsim.1 $(DESTDIR)$(PREFIX)/share/man/man1/fabsim.1
	cd src && for h in $$(find . -name '*.h' | sort); do \
	  install -D -m 644 $$h $(DESTDIR)$(PREFIX)/include/fabsim/$$h || exit 1; done
	install -m 644 report/web/report.js report/web/report.css $(SHARE)/web/
	for f in $(CHART_FILES); do \
	  install -D -m 644 report/web/node_modules/$$f $(SHARE)/web/node_modules/$$f || exit 1; done
	for f in $$(find scenarios -type f \( -name '*.yaml' -o -path '*/examples/inputs/*' \) | sort); do \
	  install -D -m 644 $$f $(SHARE)/$$f || exit 1; done
	install -m 644 docs/labs/*.md $(SHARE)/docs/labs/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/fabsim $(DESTDIR)$(PREFIX)/bin/fabsim-mpi $(DESTDIR)$(PREFIX)/lib/libfabsim.a \
	  $(DESTDIR)$(PREFIX)/share/man/man1/fabsim.1
	rm -rf $(DESTDIR)$(PREFIX)/include/fabsim $(SHARE)

fmt:
	clang-format -i $$(find src tests bench -name '*.[ch]')

clean:
	rm -rf build build-check build-lint build-fuzz

-include $(OBJS:.o=.d)
