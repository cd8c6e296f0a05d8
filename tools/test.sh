#!/usr/bin/env bash
# tools/test.sh: installs what is missing, builds, and runs the whole Criterion suite
# (every device test on PoCL and on Mesa Rusticl; a missing device fails, never skips).
# Ends with one summary line of Criterion's counts over all suites.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FIELDFUSE_BUILD_DIR:-$root/build}
"$root/tools/setup.sh"
export RUSTICL_ENABLE=${RUSTICL_ENABLE:-llvmpipe}
status=0
meson test -C "$build" --print-errorlogs --num-processes 1 "$@" || status=$?
# Criterion prints "Synthesis: Tested: N | Passing: N | Failing: N | Crashing: N" per suite.
python3 - "$build/meson-logs/testlog.txt" <<'PY' || status=1
import re, sys
passed = failed = suites = 0
for line in open(sys.argv[1], errors='replace'):
    m = re.search(r'Synthesis: Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)', line)
    if m:
        suites += 1
        passed += int(m.group(2))
        failed += int(m.group(3)) + int(m.group(4))
print("criterion: %d suites" % suites)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed or suites == 0 else 0)
PY
exit $status
