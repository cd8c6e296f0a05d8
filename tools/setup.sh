#!/usr/bin/env bash
# tools/setup.sh: installs what fieldfuse needs on Debian 12 (only what is missing; sudo only
# when not root), then configures and builds it in ./build. Idempotent: quick when all is there.
# Sourced by tools/demo.sh and tools/test.sh; can be run on its own.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FIELDFUSE_BUILD_DIR:-$root/build}

# toolchain; OpenCL headers and ICD loader; PoCL and Mesa Rusticl (two independent CPU
# OpenCL implementations); GMP (the test oracle), jansson (JSON), Criterion (tests),
# xxHash (bench output hashes), gnuplot (bench plots); clang with its sanitizer and libFuzzer runtimes (tools/fuzz.sh);
# valgrind (tools/test.sh); clang-15, libclc-15 and lld (the vendor check: tools/gpu/amdgcn_check.sh);
# Open MPI (mpirun -np N fieldfuse run: docs/hlo.md "Collectives"; tests/mpi_check.sh)
packages=(
  build-essential pkg-config python3 meson ninja-build
  ocl-icd-opencl-dev opencl-headers clinfo
  pocl-opencl-icd mesa-opencl-icd
  libgmp-dev libjansson-dev libcriterion-dev libxxhash-dev gnuplot-nox
  clang libclang-rt-14-dev valgrind
  clang-15 libclc-15 lld
  libopenmpi-dev openmpi-bin
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$root" --buildtype=release >&2
fi
ninja -C "$build" >&2
