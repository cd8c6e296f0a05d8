#!/usr/bin/env bash
# tools/soak.sh MINUTES [SEED]: random differential testing for MINUTES. Generated programs
# (tools/gen: every field and _mont type, and the extension fields once their types and
# literals exist; element-wise chains with shared subexpressions, constants 0/1/-1, divide,
# inverse, power and convert, strided slices, general broadcasts, iota, reshape,
# concatenate, compare/select, sum and product reductions over any dimensions of ranks 1..4,
# tuple outputs) are checked against the reference interpreter after every pass on the
# host, then fused and unfused on every OpenCL device. Prints counts of programs,
# elements and mismatches; exits non-zero on any mismatch or error. SEED defaults to the
# clock and is printed, so a failing run can be repeated; each failure prints the
# program's seed and its HLO text (`build/tools/fieldfuse-soak --print SEED` shows it again).
# FIELDFUSE_SOAK_DEVICE picks the devices (default all), FIELDFUSE_SOAK_ARGS adds options
# (e.g. "--types babybear,goldilocks_mont --max-elems 100000"; see fieldfuse-soak's usage).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FIELDFUSE_BUILD_DIR:-$root/build}
minutes=${1:?usage: tools/soak.sh MINUTES [SEED]}
seed=${2:-$(date +%s)}
"$root/tools/setup.sh"
export RUSTICL_ENABLE=${RUSTICL_ENABLE:-llvmpipe}
echo "soak: $minutes minute(s) from seed $seed on ${FIELDFUSE_SOAK_DEVICE:-all} device(s)" >&2
# shellcheck disable=SC2086 # FIELDFUSE_SOAK_ARGS is a list of options
exec "$build/tools/fieldfuse-soak" --minutes "$minutes" --seed "$seed" --device "${FIELDFUSE_SOAK_DEVICE:-all}" \
	--batch 10 --unfused ${FIELDFUSE_SOAK_ARGS:-}
