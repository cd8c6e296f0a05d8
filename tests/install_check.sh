#!/bin/sh
# tests/install_check.sh: does the installed library work for a user outside the tree?
# Installs the build into a temporary DESTDIR, builds the examples tools/examples/seed.c
# (parse and run), sumcheck_prover.c (builder, executables, device-resident buffers) and
# overhead.c with nothing but the flags the installed fieldfuse.pc gives (so a missing
# header, a missing Libs or Requires.private entry, or a header that needs in-tree paths
# fails here), then runs the first two against the installed libfieldfuse.so on PoCL. The
# temporary directory is ours and is removed on exit.
# Usage: install_check.sh BUILD_DIR SOURCE_DIR (meson passes both).
set -eu

build=${1:?usage: install_check.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: install_check.sh BUILD_DIR SOURCE_DIR}
cc=${CC:-cc}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ffu_install_check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

step=start
fail() {
	echo "install_check: FAILED at '$step': $*" >&2
	echo "install_check: 0 passed, 1 failed"
	exit 1
}

# meson test has already built everything; rebuilding here would race its own ninja run.
step=install
meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log" >&2; fail "meson install"; }

step=find-pc
# libdir differs by distribution (lib, lib64, lib/x86_64-linux-gnu): find the .pc wherever it landed.
pc=$(find "$tmp/root" -name fieldfuse.pc -print | head -n 1)
[ -n "$pc" ] || fail "no fieldfuse.pc under the destdir"
pcdir=$(dirname "$pc")
for h in fieldfuse.h status.h builder.h executable.h opencl.h; do
	[ -n "$(find "$tmp/root" -path "*/include/fieldfuse/$h" -print)" ] || fail "header fieldfuse/$h not installed"
done

step=pkg-config
# The .pc names the final prefix (/usr/local/...); PKG_CONFIG_SYSROOT_DIR moves every -I and
# -L into the destdir, where the files are now. System packages' paths come out unchanged
# because pkg-config drops the default system directories before the sysroot is applied.
flags=$(PKG_CONFIG_PATH="$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" PKG_CONFIG_SYSROOT_DIR="$tmp/root" \
	pkg-config --cflags --libs fieldfuse) || fail "pkg-config --cflags --libs fieldfuse"
echo "pkg-config flags: $flags"
libdir=$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir fieldfuse) || fail "pkg-config --variable=libdir"
libdir="$tmp/root$libdir"
[ -e "$libdir/libfieldfuse.so" ] || fail "no libfieldfuse.so in $libdir"

step=compile
# Strict C99 and -pedantic: the public headers must not lean on the project's gnu11 setting.
for ex in seed sumcheck_prover overhead; do
	# shellcheck disable=SC2086  # $flags is a list of words
	"$cc" -std=c99 -Wall -Wextra -pedantic -Werror "$src/tools/examples/$ex.c" $flags -o "$tmp/$ex" \
		>"$tmp/cc.log" 2>&1 || { cat "$tmp/cc.log" >&2; fail "compiling tools/examples/$ex.c"; }
done
# The OpenCL interop header with the OpenCL headers pkg-config points at.
printf '#include <fieldfuse/opencl.h>\nint main(void) { return ffu_buffer_cl_mem(0) == 0 ? 0 : 1; }\n' >"$tmp/ocl.c"
# shellcheck disable=SC2086
"$cc" -std=c99 -Wall -Wextra -pedantic -Werror "$tmp/ocl.c" $flags -o "$tmp/ocl" >"$tmp/cc.log" 2>&1 ||
	{ cat "$tmp/cc.log" >&2; fail "compiling against fieldfuse/opencl.h"; }
if command -v c++ >/dev/null 2>&1; then
	# C++ users include the headers too (extern "C" blocks)
	printf '#include <fieldfuse/fieldfuse.h>\n#include <fieldfuse/opencl.h>\nint main() { return ffu_version()[0] && !ffu_event_cl(0) ? 0 : 1; }\n' >"$tmp/cxx.cc"
	# shellcheck disable=SC2086
	c++ -Wall -Wextra -Werror "$tmp/cxx.cc" $flags -o "$tmp/cxx" >"$tmp/cxx.log" 2>&1 ||
		{ cat "$tmp/cxx.log" >&2; fail "including fieldfuse.h and opencl.h from C++"; }
fi

step=run
# The example must load the installed library, not the build tree's copy.
LD_LIBRARY_PATH="$libdir" ldd "$tmp/seed" | grep -q "$libdir/libfieldfuse.so" ||
	fail "seed does not resolve libfieldfuse.so from $libdir"
rc=0
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/seed" pocl >"$tmp/run.log" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$tmp/run.log" >&2; fail "running the example on pocl: exit $rc"; }
cat "$tmp/run.log"
grep -q '^check: ok (4096 elements)$' "$tmp/run.log" || fail "example did not report 'check: ok (4096 elements)'"

step=run-sumcheck
# The prover example: every program compiled once, data resident across rounds, checked by
# the protocol's verifier and against the interpreter.
rc=0
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/sumcheck_prover" pocl --k 12 --rounds 4 \
	>"$tmp/run.log" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$tmp/run.log" >&2; fail "running sumcheck_prover on pocl: exit $rc"; }
cat "$tmp/run.log"
grep -q '^check: ok (4 rounds' "$tmp/run.log" || fail "sumcheck_prover did not report 'check: ok (4 rounds ...'"

echo "install_check: 2 passed, 0 failed"
