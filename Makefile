# fabsim build. `make` builds build/fabsim and build/libfabsim.a; `make test`
# runs every test and ends with "N passed, N failed"; `make check` runs them
# under ASan+UBSan; `make bench` prints the benchmark figures; `make demo` runs
# every course lab and writes the report; `make validate` prints fabsim against
# published measurements (docs/validation.md). Missing Debian packages are installed
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

.PHONY: all deps test check bench demo clean lint fmt fuzz validate

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

# Every row of docs/validation.md: runs its scenarios, prints the table with
# pass/fail against each row's tolerance, writes out/validation/validation.json.
validate: $(BUILD)/fabsim
	@python3 tools/validate.py --bin $(BUILD)/fabsim -o out/validation

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

# libFuzzer on the scenario loader (clang 14; not part of `make test`): builds
# the library with -fsanitize=fuzzer-no-link,address,undefined in build-fuzz/,
# seeds a corpus with every scenario in scenarios/ and fuzzes FUZZ_TIME
# seconds. -detect_leaks=0: libfyaml 0.7.12 leaks on single-quoted scalars
# holding many '' pairs (a known bug of that release, not ours); ASan still
# catches every out-of-bounds access and use after free.
FUZZ_TIME ?= 60
FUZZ_SAN  := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
fuzz: | $(DEPS_STAMP)
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang OPT="-O1 -g" \
	  EXTRA_CFLAGS="$(FUZZ_SAN)" build-fuzz/libfabsim.a
	clang -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O1 -g $(WARN) -Isrc \
	  -fsanitize=fuzzer,address,undefined fuzz/fuzz_config.c build-fuzz/libfabsim.a \
	  $(LDLIBS) -o build-fuzz/fuzz_config
	@mkdir -p build-fuzz/corpus
	@cp $$(find scenarios -name '*.yaml') build-fuzz/corpus/
	build-fuzz/fuzz_config -max_total_time=$(FUZZ_TIME) -detect_leaks=0 -max_len=8192 \
	  -print_final_stats=1 build-fuzz/corpus

fmt:
	clang-format -i $$(find src tests bench -name '*.[ch]')

clean:
	rm -rf build build-check build-lint build-fuzz

-include $(OBJS:.o=.d)
