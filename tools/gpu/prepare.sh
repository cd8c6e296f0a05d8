#!/bin/sh
# tools/gpu/prepare.sh: run on the development machine before a session's device calls.
# Builds fieldfuse stripped (build-gpu/) and packs into .gpu/ (ignored by git) everything
# tools/gpu/h200.sh needs on a bare GPU machine that has NVIDIA's driver but no OpenCL
# loader, no build tools we rely on, and no network:
#   .gpu/build/tools/*, .gpu/build/tests/test_*   the binaries, in the build tree's layout
#                                                 ($FFU_BUILD_ROOT for the CLI tests)
#   .gpu/lib/                                     every shared library they load except
#                                                 glibc's own: the ocl-icd loader
#                                                 (libOpenCL.so.1), jansson, xxhash, GMP,
#                                                 criterion and its dependencies
# Then: the device tool's `run` with carry [".gpu"] and the command `sh tools/gpu/h200.sh`.
# The binaries come from Debian 12 (glibc 2.36), which runs on any newer glibc.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
[ -f build-gpu/build.ninja ] || meson setup build-gpu --buildtype=release -Dstrip=true >/dev/null
# the GPU machine has no clang or ptxas to run the NVIDIA assembly check with
meson configure build-gpu -Dptx_check=disabled >/dev/null
ninja -C build-gpu >/dev/null
rm -rf .gpu
mkdir -p .gpu/lib .gpu/build/tools .gpu/build/tests
cp build-gpu/tools/fieldfuse build-gpu/tools/fieldfuse-soak build-gpu/tools/fieldfuse-latency .gpu/build/tools/
find build-gpu/tests -maxdepth 1 -type f -name 'test_*' -perm -u+x -exec cp {} .gpu/build/tests/ \;
for f in .gpu/build/tools/* .gpu/build/tests/*; do
	ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'
done | sort -u | grep -v -E '/(libc|libm|libpthread|libdl|librt|libresolv|libutil|ld-linux[^/]*)\.so' |
	while read -r lib; do cp -L "$lib" .gpu/lib/; done
du -sh .gpu
