#!/usr/bin/env bash
# tools/test.sh: installs what is missing, builds, and runs the whole test suite three ways
# (docs/reliability.md):
#   1. ./build: every suite (device tests on PoCL and on Mesa Rusticl; a missing device
#      fails, never skips), the fixed-seed soak run included;
#   2. ./build-san: the same suite once more built with ASan+UBSan (-Db_sanitize=
#      address,undefined): any sanitizer report fails, leaks included (LeakSanitizer
#      suppressions only for the OpenCL drivers' own allocations: tests/sanitizers/lsan.supp);
#   3. the host-only suites of ./build under valgrind --leak-check=full (but for one GMP
#      test too slow for valgrind, see below).
# Criterion reports a test as passed even when a sanitizer or valgrind complains as its
# process exits, so the logs are also scanned for reports. Ends with one summary line of
# Criterion's counts over all runs. Arguments go to the first two `meson test` calls.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FIELDFUSE_BUILD_DIR:-$root/build}
san=${FIELDFUSE_SAN_BUILD_DIR:-$root/build-san}
"$root/tools/setup.sh"
if [ ! -f "$san/build.ninja" ]; then
	meson setup "$san" "$root" --buildtype=debugoptimized -Db_sanitize=address,undefined >&2
fi
ninja -C "$san" >&2
export RUSTICL_ENABLE=${RUSTICL_ENABLE:-llvmpipe}
status=0
start=$SECONDS

echo "== test: plain build ($build)" >&2
meson test -C "$build" --print-errorlogs --num-processes 1 "$@" || status=$?

# Mesa Clover (an ICD without devices here) leaks inside a pipe driver it dlcloses, where
# no suppression can name it; the sanitizer run sees only the two drivers the suite uses.
vendors="$san/ocl-vendors"
rm -rf "$vendors"
mkdir -p "$vendors"
for icd in /etc/OpenCL/vendors/*.icd; do
	grep -q -e libpocl -e libRusticlOpenCL "$icd" && cp "$icd" "$vendors/"
done
echo "== test: ASan+UBSan build ($san)" >&2
# use_sigaltstack=0: Rusticl's Rust runtime replaces the alternate signal stack of threads
# that call into it, and ASan then fails to unmap its own at thread exit.
# install_check links an uninstrumented example against the installed library, which an
# ASan build cannot serve (the runtime must come first); it runs in the plain build.
san_tests=("$@")
if ((${#san_tests[@]} == 0)); then
	# only lines that are test names: the listing may be preceded by ninja's or meson's chatter
	mapfile -t san_tests < <(meson test -C "$san" --list --no-rebuild 2>/dev/null |
		grep -x -E '[A-Za-z0-9_.-]+' | grep -v -x -e install_check)
fi
OCL_ICD_VENDORS="$vendors" \
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:use_sigaltstack=0:detect_odr_violation=0 \
LSAN_OPTIONS=suppressions="$root/tests/sanitizers/lsan.supp":print_suppressions=0 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	meson test -C "$san" --print-errorlogs --num-processes 1 "${san_tests[@]}" || status=$?

echo "== test: valgrind, host-only suites ($build)" >&2
rm -f "$build"/meson-logs/hostonly*
vg=(meson test -C "$build" --print-errorlogs --num-processes 1 --timeout-multiplier 10
	--wrapper "valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect --trace-children=yes --suppressions=$root/tests/sanitizers/valgrind.supp")
"${vg[@]}" --logbase hostonly test_hlo test_values test_fuzz_replay test_addchain || status=$?
# 10^5 GMP-checked values per op and field (prime and extension) take longer than those
# tests' own Criterion timeouts under valgrind; the other test_fields tests (edge values of
# every op, the extension table, parse and convert) cover the same code at valgrind speed.
"${vg[@]}" --logbase hostonly-fields \
	--test-args='--filter=fields/!(divide_inverse_mont_convert|ext_ops_against_gmp|ext_pow)' test_fields ||
	status=$?
echo "== test: $((SECONDS - start)) s" >&2

# Criterion prints "Synthesis: Tested: N | Passing: N | Failing: N | Crashing: N" per suite.
# (meson names a wrapped run's log <logbase>-<wrapper>.txt)
python3 - "$build/meson-logs/testlog.txt" "$san/meson-logs/testlog.txt" \
	"$build/meson-logs/hostonly-valgrind.txt" "$build/meson-logs/hostonly-fields-valgrind.txt" <<'PY' || status=1
import os, re, sys
passed = failed = suites = reports = 0
report = re.compile(r'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|^==\d+== (Invalid|Conditional|Use of uninit|Syscall param|Mismatched|Source and destination)|^==\d+== .* (definitely|indirectly) lost in loss record')
for path in sys.argv[1:]:
    if not os.path.exists(path):
        print("missing log: %s" % path)
        reports += 1
        continue
    for line in open(path, errors='replace'):
        m = re.search(r'Synthesis: Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)', line)
        if m:
            suites += 1
            passed += int(m.group(2))
            failed += int(m.group(3)) + int(m.group(4))
        if report.search(line):
            reports += 1
            if reports <= 20:
                print("report: %s: %s" % (path, line.rstrip()))
print("criterion: %d suites in %d logs; sanitizer/valgrind reports: %d" % (suites, len(sys.argv) - 1, reports))
print("%d passed, %d failed" % (passed, failed + reports))
sys.exit(1 if failed or reports or suites == 0 else 0)
PY
exit $status
