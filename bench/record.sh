#!/bin/sh
# bench/record.sh: re-measures everything recorded in bench/results/ on this machine's PoCL
# (and Rusticl, for the device comparison), writing the tables (.txt), JSON, CSV and plots
# the README quotes. Run it on a quiet machine: every figure is a median, but two processes
# sharing two cores still move medians by 2x. Usage: bench/record.sh [BUILD_DIR]
# (default build). The JAX comparison runs only if `python3 -c "import jax"` works, or with
# JAX_PYTHON=/path/to/python that has jax.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
ff="$root/${1:-build}/tools/fieldfuse"
out="$root/bench/results"
mkdir -p "$out"
# Fresh PoCL builds: once, a kernel binary from PoCL's own cache ran fieldops_bn254_sf in 84 ms
# where a fresh build of the same source and options ran it in 54 ms (cause not found).
POCL_KERNEL_CACHE=${POCL_KERNEL_CACHE:-0}
export POCL_KERNEL_CACHE
run() { # NAME ARGS...: fieldfuse bench ARGS with --json/--csv/--plot under bench/results/NAME
	name=$1
	shift
	echo "== $name: fieldfuse bench $*" >&2
	"$ff" bench "$@" --json "$out/$name.json" --csv "$out/$name.csv" --plot "$out/$name.png" >"$out/$name.txt"
}
run seed-pocl-2core seed_bb seed_bn254 --device pocl --k 20..24 --runs 10
run fieldops-pocl-2core fieldops --device pocl --k 20 --runs 10
run workloads-pocl-2core sumcheck sumcheck3 sumcheck_bbx4 fold chain --device pocl --k 20..22 --runs 10
run quotient-pocl-2core quotient --device pocl --k 18..20 --runs 5
run ntt-pocl-2core ntt_babybear ntt_goldilocks ntt_bn254_sf ntt_bls12_381_sf lde_babybear lde_goldilocks fieldops_babybear fieldops_goldilocks --device pocl --k 16..20 --runs 5
run ntt-large-pocl-2core ntt_babybear fieldops_babybear ntt_goldilocks fieldops_goldilocks --device pocl --k 22..24 --runs 5
# Rusticl lists no device unless told which Gallium driver to expose
RUSTICL_ENABLE=${RUSTICL_ENABLE:-llvmpipe}
export RUSTICL_ENABLE
run seed-all-k20 seed_bb seed_bn254 --device all --k 20 --runs 5
run fieldops-rusticl-2core fieldops --device rusticl --k 20 --runs 5
# 32- against 64-bit limbs for the 256-bit fields (tune measures each against the built-in
# profile, alternating; --no-write leaves the tuning database alone)
echo "== limbs: fieldfuse tune fieldops_bn254_sf fieldops_bls12_381_sf --limbs 32,64" >&2
"$ff" tune fieldops_bn254_sf fieldops_bls12_381_sf --device pocl --k 18 --runs 10 --wg 256 --lanes 1 \
	--limbs 32,64 --no-write >"$out/limbs-pocl-2core.txt" 2>&1
py=${JAX_PYTHON:-python3}
if "$py" -c "import jax" 2>/dev/null; then
	echo "== jax: bench/jax/seed_bb.py" >&2
	"$py" "$root/bench/jax/seed_bb.py" --k 20..24 --runs 10 --fieldfuse "$ff" --device pocl \
		--json "$out/jax-seed_bb-cpu.json" >"$out/jax-seed_bb-cpu.txt"
else
	echo "== jax: skipped ($py has no jax module)" >&2
fi
# NVIDIA without a GPU: SASS size and registers of the 256-bit workloads, PTX carry chains
# against the portable code and 64-bit limbs (docs/fields.md), where nvcc and ptxas are here
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
	echo "== sass: tools/gpu/ptx_check.sh --sass --nvvm" >&2
	tmp=$(mktemp -d)
	for w in seed_bn254 fieldops_bn254_sf fieldops_bls12_381_sf; do
		"$ff" compile "$root/bench/workloads/$w.hlo" --emit cl -o "$tmp/$w.cl"
	done
	{
		for arch in sm_90 sm_120; do
			(cd "$tmp" && sh "$root/tools/gpu/ptx_check.sh" --sass --nvvm --arch $arch \
				seed_bn254.cl fieldops_bn254_sf.cl fieldops_bls12_381_sf.cl)
		done
	} >"$out/sass-nvidia-static.txt"
	rm -rf "$tmp"
else
	echo "== sass: skipped (no nvcc)" >&2
fi
# AMD and NVIDIA without their GPUs: registers of every workload's kernels as the fixtures'
# devices get them (docs/benchmarks.md); NVIDIA where ptxas is here
vendors=amd
if command -v ptxas >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/ptxas ]; then vendors=amd,nvidia; fi
echo "== vendor: tools/gpu/vendor_check.sh --regs --vendors $vendors" >&2
sh "$root/tools/gpu/vendor_check.sh" --regs --vendors $vendors "$ff" >"$out/vendor-static.txt" ||
	echo "== vendor: failed or skipped, see $out/vendor-static.txt" >&2
