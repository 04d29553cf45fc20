#!/bin/sh
# Installs the Debian packages fabsim builds and tests with, when missing.
# Run by `make deps` (and by make itself the first time). Needs root or sudo.
set -e
need=""
[ -f /usr/include/libfyaml.h ] || need="$need libfyaml-dev"
[ -f /usr/include/cmocka.h ] || need="$need libcmocka-dev"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
command -v python3 >/dev/null 2>&1 || need="$need python3"
[ -n "$need" ] || exit 0
echo "fabsim: installing Debian packages:$need"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need
