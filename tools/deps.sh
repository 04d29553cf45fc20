#!/bin/sh
# Installs the Debian packages fabsim needs, when missing. Needs root or sudo.
#   sh tools/deps.sh build   what `make` and `make demo` need: libfyaml, zlib,
#                            protobuf-c (Chakra traces), and
#                            node/npm for the report's chart library
#                            (`make deps`, run by make the first time)
#   sh tools/deps.sh test    what only the tests and developer targets need:
#                            cmocka, python3, and optional tools whose tests
#                            are skipped with a message when they cannot be
#                            installed: Chromium (the report in a browser),
#                            tshark (pcap dissection), OpenSM and ibsim
#                            (tests/ib/check_opensm.sh), valgrind (make bench
#                            COUNT=1), cppcheck and clang-format (make lint), clang (make fuzz),
#                            python3-jsonschema + python3-yaml (fabsim schema),
#                            Open MPI (make mpi: build/fabsim-mpi, and
#                            tests/par/check_mpi.sh)
#                            (`make deps-test`, run by `make test`)
set -e
mode=${1:-build}
need=""
opt=""
case "$mode" in
build)
    [ -f /usr/include/libfyaml.h ] || need="$need libfyaml-dev"
    # --pcap FILE.gz: gzip-compressed captures (src/stats/pcap.c)
    [ -f /usr/include/zlib.h ] || need="$need zlib1g-dev"
    command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
    # Chakra execution traces (docs/inputs.md): protobuf-c and its code generator
    [ -f /usr/include/protobuf-c/protobuf-c.h ] || need="$need libprotobuf-c-dev"
    command -v protoc-c >/dev/null 2>&1 || need="$need protobuf-c-compiler"
    command -v node >/dev/null 2>&1 || need="$need nodejs"
    command -v npm >/dev/null 2>&1 || need="$need npm"
    ;;
test)
    [ -f /usr/include/cmocka.h ] || need="$need libcmocka-dev"
    command -v python3 >/dev/null 2>&1 || need="$need python3"
    [ -x /usr/bin/chromium ] || opt="$opt chromium"
    command -v tshark >/dev/null 2>&1 || opt="$opt tshark"
    command -v opensm >/dev/null 2>&1 || opt="$opt opensm"
    command -v ibsim >/dev/null 2>&1 || opt="$opt ibsim-utils"
    [ -f /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so ] || opt="$opt libumad2sim0"
    command -v valgrind >/dev/null 2>&1 || opt="$opt valgrind"
    command -v cppcheck >/dev/null 2>&1 || opt="$opt cppcheck"
    command -v clang-format >/dev/null 2>&1 || opt="$opt clang-format" # make lint
    command -v mpicc >/dev/null 2>&1 || opt="$opt libopenmpi-dev"
    command -v mpirun >/dev/null 2>&1 || opt="$opt openmpi-bin"
    command -v clang >/dev/null 2>&1 || opt="$opt clang" # make fuzz, and its short run in make check
    # libFuzzer's runtime is a Recommends of clang's packages, not a Depends:
    # ask for it by name so that -fsanitize=fuzzer links where recommends are off.
    ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
        opt="$opt libclang-rt-14-dev"
    python3 -c "import jsonschema, yaml" 2>/dev/null || opt="$opt python3-jsonschema python3-yaml"
    ;;
*)
    echo "usage: sh tools/deps.sh build|test" >&2
    exit 2
    ;;
esac
[ -n "$need$opt" ] || exit 0
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
# `make -j2 deps deps-test` runs both modes at once: apt holds one lock and
# the other would fail on it, so the installs take turns (flock, util-linux).
if command -v flock >/dev/null 2>&1; then
    exec 9>"${TMPDIR:-/tmp}/fabsim-deps.lock"
    flock 9
fi
$SUDO apt-get update -qq
if [ -n "$need" ]; then
    echo "fabsim: installing Debian packages ($mode):$need"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need
fi
if [ -n "$opt" ]; then
    echo "fabsim: installing Debian packages for the tests:$opt"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $opt ||
        echo "fabsim: could not install$opt; the tests that need them will be skipped"
fi
