#!/usr/bin/env bash
# tools/soak.sh MINUTES [SEED]: random differential testing for MINUTES. Generated
# element-wise programs (tools/gen: babybear and bn254_sf chains, shared subexpressions,
# broadcast constants and parameters, tuple outputs) run fused and unfused on every OpenCL
# device and are compared element by element with the reference interpreter. Prints counts
# of programs, elements and mismatches; exits non-zero on any mismatch or error. SEED
# defaults to the clock and is printed, so a failing run can be repeated; each failure
# names the program's seed (`build/tools/fieldfuse-soak --print SEED` shows it).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FIELDFUSE_BUILD_DIR:-$root/build}
minutes=${1:?usage: tools/soak.sh MINUTES [SEED]}
seed=${2:-$(date +%s)}
"$root/tools/setup.sh"
export RUSTICL_ENABLE=${RUSTICL_ENABLE:-llvmpipe}
echo "soak: $minutes minute(s) from seed $seed on ${FIELDFUSE_SOAK_DEVICE:-all} device(s)" >&2
exec "$build/tools/fieldfuse-soak" --minutes "$minutes" --seed "$seed" --device "${FIELDFUSE_SOAK_DEVICE:-all}"
