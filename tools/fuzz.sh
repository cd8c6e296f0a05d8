#!/usr/bin/env bash
# tools/fuzz.sh SECONDS [TARGET...]: builds the libFuzzer targets of tests/fuzz with clang,
# ASan and UBSan in their own build dir (build-fuzz; meson -Dfuzzing=true), then runs each
# target (default: all) for SECONDS from the kept corpus. Exits non-zero on any crash, leak
# or sanitizer report; the reproducer is left in build-fuzz/fuzz-artifacts/TARGET/ and
# belongs in tests/fuzz/regressions/TARGET/ once the bug is fixed (test_fuzz_replay runs it).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
secs=${1:?usage: tools/fuzz.sh SECONDS [hlo|values]...}
shift
targets=("$@")
((${#targets[@]})) || targets=(hlo values)
build=${FIELDFUSE_FUZZ_BUILD_DIR:-$root/build-fuzz}

"$root/tools/setup.sh"
if [ ! -f "$build/build.ninja" ]; then
	# b_lundef=false: clang links the sanitizer runtimes into executables only
	CC=clang meson setup "$build" "$root" -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false \
		--buildtype=debugoptimized -Dc_args=-fno-sanitize-recover=undefined >&2
fi
ninja -C "$build" "${targets[@]/#/tests/fuzz/fuzz_}" >&2

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
status=0
for t in "${targets[@]}"; do
	work="$build/fuzz-corpus/$t"
	artifacts="$build/fuzz-artifacts/$t"
	mkdir -p "$work" "$artifacts"
	seeds=("$root/tests/fuzz/corpus/$t" "$root/tests/fuzz/regressions/$t")
	extra=()
	if [ "$t" = hlo ]; then
		seeds+=("$root/tests/bad" "$root/bench/workloads")
		extra+=(-dict="$root/tests/fuzz/hlo.dict" -max_len=4096)
	else
		extra+=(-max_len=2048)
	fi
	echo "fuzz: $t for ${secs}s" >&2
	rc=0
	# new inputs go to the first corpus dir (the build's), never into the source tree
	"$build/tests/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=20 -rss_limit_mb=4096 \
		-artifact_prefix="$artifacts/" -print_final_stats=1 "${extra[@]}" "$work" "${seeds[@]}" \
		>"$build/fuzz-$t.log" 2>&1 || rc=$?
	tail -n 12 "$build/fuzz-$t.log" >&2
	if [ "$rc" -ne 0 ] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$build/fuzz-$t.log"; then
		echo "fuzz: $t FAILED (exit $rc); log $build/fuzz-$t.log; reproducers:" >&2
		ls -1 "$artifacts" >&2 || true
		status=1
	else
		echo "fuzz: $t ok" >&2
	fi
done
exit $status
