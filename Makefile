# fabsim build. `make` builds build/fabsim and build/libfabsim.a; `make test`
# runs every test and ends with "N passed, N failed"; `make check` runs them
# under ASan+UBSan; `make bench` prints the benchmark figures; `make demo` runs
# every course lab and writes the report. Missing Debian packages are installed
# by `make deps`, which the other targets run first when something is missing.

CC      ?= cc
BUILD   ?= build
OPT     ?= -O2 -g
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wundef -Werror
CFLAGS  += -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(OPT) $(WARN) -Isrc $(EXTRA_CFLAGS)
LDLIBS  := -lfyaml -lm
TEST_LDLIBS := -lcmocka

SRCS    := $(filter-out src/cli/main.c,$(shell find src -name '*.c' | sort))
OBJS    := $(SRCS:%.c=$(BUILD)/%.o)
TESTS_SRC := $(shell find tests -name 'test_*.c' | sort)
TESTS   := $(TESTS_SRC:%.c=$(BUILD)/%)
BENCH_SRC := $(shell find bench -name '*.c' 2>/dev/null | sort)
BENCHES := $(BENCH_SRC:%.c=$(BUILD)/%)

DEPS_STAMP := $(BUILD)/.deps-ok
# The report's chart library (Vega-Lite, vega, vega-embed) and the browser
# test's playwright-core, pinned by report/web/package-lock.json.
WEB_STAMP := report/web/node_modules/.package-lock.json

.PHONY: all deps test check bench demo clean lint fmt fuzz

all: $(BUILD)/fabsim

# Installs what the build needs from Debian when it is missing. Headers are the
# test: a fresh Debian 12 machine has gcc and make but not these -dev packages.
$(DEPS_STAMP):
	@sh tools/deps.sh
	@mkdir -p $(BUILD) && touch $@

$(WEB_STAMP): report/web/package.json report/web/package-lock.json | $(DEPS_STAMP)
	cd report/web && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

deps:
	@rm -f $(DEPS_STAMP)
	@$(MAKE) --no-print-directory $(DEPS_STAMP) $(WEB_STAMP)

$(BUILD)/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libfabsim.a: $(OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/fabsim: $(BUILD)/src/cli/main.o $(BUILD)/libfabsim.a
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/tests/%: tests/%.c $(BUILD)/libfabsim.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -Itests $< -o $@ $(BUILD)/libfabsim.a $(TEST_LDLIBS) $(LDLIBS)

$(BUILD)/bench/%: bench/%.c $(BUILD)/libfabsim.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $< -o $@ $(BUILD)/libfabsim.a $(LDLIBS)

test: $(BUILD)/fabsim $(TESTS) $(WEB_STAMP)
	@sh tests/run.sh $(BUILD)

# ASan + UBSan build of everything, in its own folder.
check:
	@$(MAKE) --no-print-directory BUILD=build-check OPT="-O1 -g -fno-omit-frame-pointer -DFABSIM_DEBUG" \
	  EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" \
	  LDFLAGS="-fsanitize=address,undefined" test
	@if command -v clang >/dev/null; then $(MAKE) --no-print-directory fuzz FUZZ_TIME=8; \
	  else echo "skip: the CI-sized fuzz run (no clang; make deps installs it)"; fi

bench: $(BUILD)/fabsim $(BENCHES)
	@sh bench/run.sh $(BUILD) $(COUNT)

demo: $(BUILD)/fabsim $(WEB_STAMP)
	@$(BUILD)/fabsim labs -o out/labs
	@echo "Open $(CURDIR)/out/labs/report.html in a browser (self-contained, works offline)."

# cppcheck (suppressions in tools/cppcheck.supp, each justified there) and a
# -Wconversion build (-Werror: it is clean; cast where a narrowing is meant).
lint: | $(DEPS_STAMP)
	cppcheck --quiet --enable=warning,performance,portability --error-exitcode=1 \
	  --suppressions-list=tools/cppcheck.supp -Isrc src
	$(MAKE) --no-print-directory BUILD=build-lint EXTRA_CFLAGS="-Wconversion" all

# libFuzzer (clang 14; `make fuzz`, and briefly in `make check`): builds the
# library with -fsanitize=fuzzer-no-link,address,undefined in build-fuzz/ and
# fuzzes three targets FUZZ_TIME seconds each: the scenario loader
# (fuzz_config), the report's JSON reader and embedding (fuzz_jread), and
# load + build + run of small models (fuzz_model). Corpora (seeded from
# scenarios/ and tests/report/fixture) and crash artefacts stay under
# build-fuzz/ (crash-*, timeout-*: build-fuzz/artifacts/); exit 0 on a clean
# run. Leak detection is off (ASAN_OPTIONS and -detect_leaks=0): libfyaml
# 0.7.12 leaks on single-quoted scalars holding many '' pairs (a known bug of
# that release, not ours), and LeakSanitizer's report at exit would turn a
# clean run into exit 2; ASan still catches every out-of-bounds access and use
# after free.
FUZZ_TIME ?= 60
FUZZ_TARGETS := fuzz_config fuzz_jread fuzz_model
FUZZ_SAN  := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
fuzz: | $(DEPS_STAMP)
	@command -v clang >/dev/null || { echo "make fuzz needs clang (make deps installs it)"; exit 2; }
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang OPT="-O1 -g" \
	  EXTRA_CFLAGS="$(FUZZ_SAN)" build-fuzz/libfabsim.a
	@mkdir -p build-fuzz/artifacts build-fuzz/corpus-fuzz_config build-fuzz/corpus-fuzz_model \
	  build-fuzz/corpus-fuzz_jread
	@cp $$(find scenarios -name '*.yaml') build-fuzz/corpus-fuzz_config/
	@for f in $$(find scenarios tests/report/fixture -name '*.yaml'); do \
	  cp "$$f" build-fuzz/corpus-fuzz_model/$$(echo "$$f" | tr / -); done
	@printf '{"a":[1,-0.5e3,true,false,null],"s":"x<\\u2028\\ud83d\\ude00"}' \
	  >build-fuzz/corpus-fuzz_jread/seed.json
	@for t in $(FUZZ_TARGETS); do \
	  clang -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O1 -g $(WARN) -Isrc \
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

fmt:
	clang-format -i $$(find src tests bench -name '*.[ch]')

clean:
	rm -rf build build-check build-lint build-fuzz

-include $(OBJS:.o=.d)
