#!/usr/bin/env bash
# Installs what famsim needs (Debian 12 packages) and builds it. Safe to run again: installed
# packages are skipped and the build is incremental.
#
#   scripts/setup.sh [--build-dir DIR] [--sanitize]
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=build
cmake_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --sanitize) cmake_args+=(-DFAMSIM_SANITIZE=ON -DCMAKE_BUILD_TYPE=Release); shift ;;
    *) echo "setup.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

packages=(
  build-essential cmake ninja-build pkg-config
  libsystemc-dev libboost-dev libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libgtest-dev libopenmpi-dev openmpi-bin
  python3 python3-yaml python3-matplotlib
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [[ ! -f $build_dir/CMakeCache.txt ]]; then
  # Ninja starts a target's sources as soon as their own inputs are ready (the test sources while
  # the library's are still compiling); with Makefiles each target waits for the one it links, and
  # each precompiled header is built alone. A directory configured earlier keeps its generator.
  cmake -S . -B "$build_dir" -G Ninja "${cmake_args[@]}"
fi
cmake --build "$build_dir" -j"$(nproc)"
