#!/bin/sh
# Installs the Debian packages fabsim builds and tests with, when missing.
# Run by `make deps` (and by make itself the first time). Needs root or sudo.
set -e
need=""
[ -f /usr/include/libfyaml.h ] || need="$need libfyaml-dev"
[ -f /usr/include/cmocka.h ] || need="$need libcmocka-dev"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
command -v python3 >/dev/null 2>&1 || need="$need python3"
# The report's chart library comes from npm (report/web, `npm ci`); the tests
# open the report in headless Chromium and dissect pcap exports with tshark.
command -v node >/dev/null 2>&1 || need="$need nodejs"
command -v npm >/dev/null 2>&1 || need="$need npm"
# Test-only packages: when they cannot be installed, their tests are skipped
# with a message, so they are installed apart and their failure is not fatal.
opt=""
[ -x /usr/bin/chromium ] || opt="$opt chromium"
command -v tshark >/dev/null 2>&1 || opt="$opt tshark"
# OpenSM on an ibsim-emulated fabric (tests/ib/check_opensm.sh)
command -v opensm >/dev/null 2>&1 || opt="$opt opensm"
command -v ibsim >/dev/null 2>&1 || opt="$opt ibsim-utils"
[ -f /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so ] || opt="$opt libumad2sim0"
# libFuzzer for `make fuzz` and the short fuzz run of `make check`
command -v clang >/dev/null 2>&1 || opt="$opt clang"
[ -n "$need$opt" ] || exit 0
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO apt-get update -qq
if [ -n "$need" ]; then
    echo "fabsim: installing Debian packages:$need"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need
fi
if [ -n "$opt" ]; then
    echo "fabsim: installing Debian packages for the tests:$opt"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $opt ||
        echo "fabsim: could not install$opt; the tests that need them will be skipped"
fi
