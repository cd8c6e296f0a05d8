#!/usr/bin/env bash
# tools/demo.sh: the main job. Installs what is missing, builds, then runs the seed
# comparison on every OpenCL device found: (x + y) * x on BabyBear and x*x - x on the BN254
# scalar field (the workload ZKX measured against ICICLE), fused and unfused, plus a copy
# kernel as the bandwidth roof; prints a table of times and ratios per device.
# Extra arguments go to `fieldfuse bench` (e.g. --k 18..22, --json out.json).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/setup.sh"
export RUSTICL_ENABLE=${RUSTICL_ENABLE:-llvmpipe}   # Mesa's Rusticl shows no device without it
ff=${FIELDFUSE_BUILD_DIR:-$root/build}/tools/fieldfuse
echo "OpenCL devices:"
"$ff" devices
exec "$ff" bench seed_bb seed_bn254 --device all --k 20 --runs 5 "$@"
