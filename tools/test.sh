#!/usr/bin/env bash
# tools/test.sh: installs what is missing, builds, and runs the test suite (docs/reliability.md).
#
#   tools/test.sh [--full] [TEST...]
#
# Default (before every commit): every suite once in ./build, every device test on PoCL
# and on Mesa Rusticl (a missing device fails, never skips), random value counts sized to
# what finds bugs and the short fixed-seed soak (meson's default test setup, 'quick').
# Suites run side by side (meson test's processes, Criterion's jobs: one per CPU each).
#
# --full (what CI runs, .ci/run): the same suite with the large counts and the long soak
# (meson test --setup full, FFU_TEST_FULL=1), then
#   2. ./build-san: every test once more built with ASan+UBSan (-Db_sanitize=
#      address,undefined), at the default setup's counts (the sanitizers look at code paths,
#      which the large counts do not add; they would only slow it past its timeouts): any
#      sanitizer report fails, leaks included (LeakSanitizer suppressions only for the
#      OpenCL drivers' own allocations: tests/sanitizers/lsan.supp);
#   3. the host-only suites of ./build under valgrind --leak-check=full (but for one GMP
#      test too slow for valgrind, see below).
# Criterion reports a test as passed even when a sanitizer or valgrind complains as its
# process exits, so the logs are also scanned for reports. Ends with the slowest ten tests
# and one summary line of Criterion's counts over all runs. TEST names go to every
# `meson test` call but valgrind's.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FIELDFUSE_BUILD_DIR:-$root/build}
san=${FIELDFUSE_SAN_BUILD_DIR:-$root/build-san}
full=0
if [ "${1:-}" = "--full" ]; then
	full=1
	shift
fi
"$root/tools/setup.sh"
export RUSTICL_ENABLE=${RUSTICL_ENABLE:-llvmpipe}
status=0
start=$SECONDS
setup=(--setup quick)
((full)) && setup=(--setup full)
# every meson test log of this run, for the summary (meson names it after the setup)
logs=("$build/meson-logs/testlog-${setup[1]}.txt")

echo "== test: plain build ($build), ${setup[1]}" >&2
# Criterion's per-test times of the last run only
rm -f "$build"/meson-logs/criterion-*.xml
meson test -C "$build" --print-errorlogs "${setup[@]}" "$@" || status=$?
echo "== test: plain build: $((SECONDS - start)) s" >&2

if ((full)); then
	if [ ! -f "$san/build.ninja" ]; then
		meson setup "$san" "$root" --buildtype=debugoptimized -Db_sanitize=address,undefined >&2
	fi
	ninja -C "$san" >&2
	# Mesa Clover (an ICD without devices here) leaks inside a pipe driver it dlcloses,
	# where no suppression can name it; the sanitizer run sees only the two drivers the
	# suite uses.
	vendors="$san/ocl-vendors"
	rm -rf "$vendors"
	mkdir -p "$vendors"
	for icd in /etc/OpenCL/vendors/*.icd; do
		grep -q -e libpocl -e libRusticlOpenCL "$icd" && cp "$icd" "$vendors/"
	done
	san_start=$SECONDS
	echo "== test: ASan+UBSan build ($san)" >&2
	# use_sigaltstack=0: Rusticl's Rust runtime replaces the alternate signal stack of
	# threads that call into it, and ASan then fails to unmap its own at thread exit.
	# intercept_tls_get_addr=0: GCC 12's ASan records a bogus dynamic-TLS range for a driver
	# where PoCL and Rusticl share a process, and LeakSanitizer's tracer crashes on it at
	# exit (docs/reliability.md says why this hides no leak).
	# install_check links an uninstrumented example against the installed library, which
	# an ASan build cannot serve (the runtime must come first); it runs in the plain build.
	san_tests=("$@")
	if ((${#san_tests[@]} == 0)); then
		# `meson test --list` prints "project / name" or "project:suite / name"
		mapfile -t san_tests < <(meson test -C "$san" --list --no-rebuild --setup quick 2>/dev/null |
			sed -n 's|^[A-Za-z0-9_:-]* / \([A-Za-z0-9_.-]*\)$|\1|p' | grep -v -x -e install_check)
	fi
	OCL_ICD_VENDORS="$vendors" \
	ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:use_sigaltstack=0:detect_odr_violation=0:intercept_tls_get_addr=0 \
	LSAN_OPTIONS=suppressions="$root/tests/sanitizers/lsan.supp":print_suppressions=0 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		meson test -C "$san" --print-errorlogs --setup quick "${san_tests[@]}" || status=$?
	logs+=("$san/meson-logs/testlog-quick.txt")
	echo "== test: ASan+UBSan build: $((SECONDS - san_start)) s" >&2

	vg_start=$SECONDS
	echo "== test: valgrind, host-only suites ($build)" >&2
	rm -f "$build"/meson-logs/hostonly*
	vg=(meson test -C "$build" --print-errorlogs --timeout-multiplier 10
		--wrapper "valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect --trace-children=yes --suppressions=$root/tests/sanitizers/valgrind.supp")
	"${vg[@]}" --logbase hostonly test_hlo test_values test_fuzz_replay test_addchain test_dot test_collective test_sharding || status=$?
	# GMP-checked random values per op and field (prime, extension and the extensions' _mont
	# twins) take longer than those tests' own Criterion timeouts under valgrind; the other
	# test_fields tests (edge values of every op, the extension table, parse and convert)
	# cover the same code at valgrind speed.
	"${vg[@]}" --logbase hostonly-fields \
		--test-args='--filter=fields/!(divide_inverse_mont_convert|ext_ops_against_gmp|ext_mont_ops_against_gmp|ext_pow)' test_fields ||
		status=$?
	# (meson names a wrapped run's log <logbase>-<wrapper>.txt)
	logs+=("$build/meson-logs/hostonly-valgrind.txt" "$build/meson-logs/hostonly-fields-valgrind.txt")
	echo "== test: valgrind: $((SECONDS - vg_start)) s" >&2
fi
echo "== test: $((SECONDS - start)) s" >&2

# Counts from meson's JSON logs (one beside each text log): a Criterion suite counts its
# tests ("Synthesis: Tested: N | Passing: N | Failing: N | Crashing: N"), and one failure
# more if meson saw it fail with none of its tests failing (killed, timed out, a report at
# exit); any other test (soak, the examples, the vendor and ZKX checks) counts one. The text
# logs are scanned for sanitizer and valgrind reports; Criterion's XML reports
# (tests/meson.build) hold each test's time. Each failed test is named with its first
# Criterion failure lines, which come before any report its early stop leaves.
python3 - "$build/meson-logs" "${logs[@]}" <<'PY' || status=1
import glob, json, os, re, sys
passed = failed = suites = reports = 0
synthesis = re.compile(r'Synthesis: Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)')
report = re.compile(r'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|^==\d+== (Invalid|Conditional|Use of uninit|Syscall param|Mismatched|Source and destination)|^==\d+== .* (definitely|indirectly) lost in loss record')
for path in sys.argv[2:]:
    jpath = path[:-len('.txt')] + '.json'
    if not os.path.exists(path) or not os.path.exists(jpath):
        print("missing log: %s" % (path if not os.path.exists(path) else jpath))
        reports += 1
        continue
    for line in open(path, errors='replace'):
        if report.search(line):
            reports += 1
            if reports <= 20:
                print("report: %s: %s" % (path, line.rstrip()))
    for line in open(jpath, errors='replace'):
        t = json.loads(line)
        ok = t['result'] in ('OK', 'EXPECTEDFAIL')
        out = t.get('stdout', '') + t.get('stderr', '')
        if not ok:
            # what failed first, before the reports it may leave behind (a test that stops
            # at a failed assertion leaks what it held, and LeakSanitizer says so)
            why = [l for l in out.splitlines() if l.startswith(('[FAIL]', '[----]')) and l[6:].strip()]
            print("failed: %s: %s (%s, exit %s)%s" % (path, t['name'], t['result'], t.get('returncode'),
                  ''.join('\n    ' + l for l in why[:6])))
        counts = synthesis.findall(out)
        if not counts:
            passed += ok
            failed += not ok
            continue
        suites += 1
        bad = sum(int(c[2]) + int(c[3]) for c in counts)
        passed += sum(int(c[1]) for c in counts)
        failed += bad + (0 if ok or bad else 1)
times = []
for path in glob.glob(os.path.join(sys.argv[1], 'criterion-*.xml')):
    suite = os.path.basename(path)[len('criterion-'):-len('.xml')]
    for m in re.finditer(r'<testcase name="([^"]+)"[^>]*time="([0-9.]+)"', open(path, errors='replace').read()):
        times.append((float(m.group(2)), suite, m.group(1)))
if times:
    print("slowest tests (plain build):")
    for t, suite, name in sorted(times, reverse=True)[:10]:
        print("  %7.1f s  %s %s" % (t, suite, name))
print("criterion: %d suites in %d logs; sanitizer/valgrind reports: %d" % (suites, len(sys.argv) - 2, reports))
print("%d passed, %d failed" % (passed, failed + reports))
sys.exit(1 if failed or reports or suites == 0 else 0)
PY
exit $status
