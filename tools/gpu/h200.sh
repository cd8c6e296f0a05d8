#!/bin/sh
# tools/gpu/h200.sh: run ON the GPU machine, from the repository root, with .gpu/ carried
# (tools/gpu/prepare.sh). Makes NVIDIA's OpenCL usable without installing anything (the
# carried ocl-icd loader, told by OCL_ICD_VENDORS where the driver's
# libnvidia-opencl.so.1 is), then records into ./gpu-out/ and packs it as $OUT/gpu-results.tar.gz (the device tool
# returns at most 8 files), next to $OUT/summary.txt:
#   devices.json              fieldfuse devices --json
#   tests.txt                 the device suites (test_fft, test_field_device, test_pipeline,
#                             test_power) with FIELDFUSE_TEST_DEVICE=nvidia, and the soak
#   bench-ntt{31,64}.*        the NTT workloads (ntt_*, lde_babybear) and fieldops_babybear
#   bench-*.{txt,json,csv}    the bench suite on nvidia (seed k=20..25, fieldops, workloads)
#   bench-msm.*, msm-tests.txt  the msm workloads at k=16..20 (issue 20's GPU table, next to
#                             ICICLE's published RTX 4090 figures), then test_msm_device and
#                             test_point_ops_device on the GPU
#   ptx-check.txt, ptx-{chains,portable}-N.txt  the 256-bit workloads with and without
#                             the PTX carry chains (FIELDFUSE_NO_PTX): checked against the
#                             reference interpreter, then timed three times in turn
#   tune.txt, tuning.json     fieldfuse tune --device nvidia, its database written to $OUT
#   jax-seed_bb.txt           bench/jax/seed_bb.py on the GPU's JAX next to fieldfuse
# Each step's exit status is logged in summary.txt; one failing step does not stop the rest.
# STEPS="devices msm ntt tests bench ptx tune jax" selects steps (default: all); FFU_GPU_DEVICE
# another selector than nvidia (with FFU_NVIDIA_ICD another ICD: how the script was tried on
# PoCL); FFU_QUICK=1 runs the device suites at their default depth, not FFU_TEST_FULL's;
# FFU_MSM_K the msm step's sizes (default 16..20).
# Each step runs under `timeout` (its own limit below, scaled by FFU_STEP_SCALE percent) and
# the results are packed after every step, so a device call that runs out of time still
# brings back everything finished before it.
set -u
root=$(pwd)
out=$root/gpu-out
rm -rf "$out"
mkdir -p "$out"
steps=${STEPS:-devices msm ntt tests bench ptx tune jax}
scale=${FFU_STEP_SCALE:-100}
dev=${FFU_GPU_DEVICE:-nvidia} # the selector every step uses
icd=${FFU_NVIDIA_ICD:-}
if [ -z "$icd" ]; then
	for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do
		[ -e "$d/libnvidia-opencl.so.1" ] && icd=$d/libnvidia-opencl.so.1 && break
	done
fi
[ -z "$icd" ] && icd=$(ldconfig -p 2>/dev/null | awk '/libnvidia-opencl.so.1/ { print $NF; exit }')
if [ -z "$icd" ]; then
	echo "h200.sh: no libnvidia-opencl.so.1 found (set FFU_NVIDIA_ICD=/path/to/it)" | tee "$out/summary.txt"
	exit 1
fi
# Debian 12's ocl-icd (the carried loader) reads no OCL_ICD_FILENAMES; it takes the .icd
# files of the folder OCL_ICD_VENDORS names instead of /etc/OpenCL/vendors. Without this
# it lists only what the machine's own /etc/OpenCL/vendors holds (a PoCL, on the GPU image).
mkdir -p "$out/vendors"
echo "$icd" >"$out/vendors/gpu.icd"
export OCL_ICD_VENDORS="$out/vendors" OCL_ICD_FILENAMES="$icd"
# the driver's own libraries (libnvidia-ptxjitcompiler, ...) sit beside the ICD and carry no
# RPATH: without its folder on the path the loader's dlopen fails and lists no NVIDIA device
export LD_LIBRARY_PATH="$root/.gpu/lib:$(dirname "$icd")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export FFU_SOURCE_ROOT="$root" FFU_BUILD_ROOT="$root/.gpu/build"
export XDG_CACHE_HOME="$out/cache" # the tuning database and program cache land in $OUT
ff="$root/.gpu/build/tools/fieldfuse"
echo "icd: $icd" >"$out/summary.txt"
no_ptx() { # VARIANT: FIELDFUSE_NO_PTX's value for "chains" (empty: off) or "portable"
	[ "$1" = portable ] && echo 1
}
pack() { # the results so far, without the program cache (the tuning database is copied out)
	[ -n "${OUT:-}" ] || return 0
	tar -C "$root" --exclude=gpu-out/cache -czf "$OUT/gpu-results.tar.gz" gpu-out
	cp "$out/summary.txt" "$OUT/summary.txt"
}
step() { # NAME LIMIT CMD...: runs CMD for at most LIMIT seconds (scaled), logs its status
	name=$1
	limit=$(($2 * scale / 100))
	shift 2
	echo "== $name: $*" >&2
	t0=$(date +%s)
	timeout "$limit" "$@"
	rc=$?
	# a test binary that ran out of time lives on (Criterion's runner leaves the process
	# group timeout signals, seen on PoCL) and would load the GPU under the next steps;
	# its workers end with it
	[ $rc = 124 ] && { pkill -f "$root/.gpu/build/tests/" 2>/dev/null || true; }
	echo "$name: exit $rc$([ $rc = 124 ] && echo " (stopped at ${limit} s)") in $(($(date +%s) - t0)) s" >>"$out/summary.txt"
	pack
}
for s in $steps; do
	case $s in
	devices)
		step devices 30 sh -c "'$ff' devices --json >'$out/devices.json' 2>'$out/devices.err'; '$ff' devices >>'$out/summary.txt'" ;;
	msm)
		# bench checks every size's fused result against the unfused one and the C baseline
		# (OpenMP on the machine's cores); kernel times, the data on the device, as ICICLE's
		step bench-msm 400 "$ff" bench msm_bn254_g1 msm_bls12_381_g1 msm_bn254_g2 msm_bls12_381_g2 \
			--device "$dev" --k "${FFU_MSM_K:-16..20}" --runs 5 --json "$out/bench-msm.json" --csv "$out/bench-msm.csv" \
			>"$out/bench-msm.txt"
		# both device slots the GPU (tests/support.c); Criterion's own parallelism
		for t in test_msm_device test_point_ops_device; do
			step "$t" 180 sh -c "FIELDFUSE_TEST_DEVICE='$dev' '$root/.gpu/build/tests/$t' >>'$out/msm-tests.txt' 2>&1"
		done ;;
	ntt)
		# the 31-bit rows first (the product-rate comparison needs fieldops_babybear's run)
		step bench-ntt31 120 "$ff" bench ntt_babybear lde_babybear fieldops_babybear --device "$dev" \
			--k 18..24 --runs 5 --json "$out/bench-ntt31.json" --csv "$out/bench-ntt31.csv" >"$out/bench-ntt31.txt"
		step bench-ntt64 120 "$ff" bench ntt_goldilocks ntt_bn254_sf ntt_bls12_381_sf --device "$dev" \
			--k 18..23 --runs 5 --json "$out/bench-ntt64.json" --csv "$out/bench-ntt64.csv" >"$out/bench-ntt64.txt" ;;
	tests)
		export FIELDFUSE_TEST_DEVICE="$dev"
		# the deep run's GMP-checked value counts (tests/support.h: ffu_test_count)
		[ "${FFU_QUICK:-0}" = 1 ] || export FFU_TEST_FULL=1
		# test_fft's pocl_* and rusticl_* tests are the same test on one device here
		step test_fft 120 sh -c "'$root/.gpu/build/tests/test_fft' --jobs 1 --filter 'fft/pocl_*' >>'$out/tests.txt' 2>&1"
		for t in test_field_device test_pipeline test_power; do
			step "$t" 90 sh -c "'$root/.gpu/build/tests/$t' --jobs 1 >>'$out/tests.txt' 2>&1"
		done
		# the portable 256-bit code too: on NVIDIA the default is the PTX carry chains
		step test_field_device-no-ptx 90 sh -c "FIELDFUSE_NO_PTX=1 '$root/.gpu/build/tests/test_field_device' --jobs 1 >>'$out/tests.txt' 2>&1"
		step soak 60 sh -c "'$root/.gpu/build/tools/fieldfuse-soak' --count 500 --seed 1 --batch 25 --cheap --max-elems 512 --device "$dev" >>'$out/tests.txt' 2>&1"
		unset FIELDFUSE_TEST_DEVICE FFU_TEST_FULL ;;
	bench)
		step bench-seed 60 "$ff" bench seed_bb seed_bn254 --device "$dev" --k 20..25 --runs 10 \
			--json "$out/bench-seed.json" --csv "$out/bench-seed.csv" >"$out/bench-seed.txt"
		step bench-fieldops 60 "$ff" bench fieldops --device "$dev" --k 22 --runs 10 \
			--json "$out/bench-fieldops.json" --csv "$out/bench-fieldops.csv" >"$out/bench-fieldops.txt"
		step bench-workloads 90 "$ff" bench sumcheck sumcheck3 sumcheck_bbx4 fold chain quotient --device "$dev" \
			--k 22..24 --runs 10 --json "$out/bench-workloads.json" --csv "$out/bench-workloads.csv" \
			>"$out/bench-workloads.txt" ;;
	ptx)
		# first right (against the reference interpreter, even without the tests step), then
		# the PTX carry chains against the portable 256-bit code (FIELDFUSE_NO_PTX), in turn
		w256="seed_bn254 fieldops_bn254_sf fieldops_bls12_381_sf"
		for v in chains portable; do
			for w in $w256; do
				step "ptx-check-$v-$w" 30 sh -c "FIELDFUSE_NO_PTX=$(no_ptx $v) '$ff' run '$root/bench/workloads/$w.hlo' --random 1 --device '$dev' --check -o /dev/null >>'$out/ptx-check.txt' 2>&1"
			done
		done
		for r in 1 2 3; do
			for v in chains portable; do
				step "ptx-$v-$r" 30 env FIELDFUSE_NO_PTX=$(no_ptx $v) "$ff" bench $w256 --device "$dev" --k 22 --runs 10 \
					>"$out/ptx-$v-$r.txt"
			done
		done ;;
	tune)
		step tune 300 sh -c "'$ff' tune --device "$dev" --limbs 32,64 >'$out/tune.txt' 2>&1; cp '$out'/cache/fieldfuse/tuning*.json '$out/tuning.json' 2>/dev/null; true" ;;
	jax)
		step jax 300 sh -c "python3 '$root/bench/jax/seed_bb.py' --k 20..25 --runs 10 --fieldfuse '$ff' --device "$dev" --json '$out/jax-seed_bb.json' >'$out/jax-seed_bb.txt' 2>&1" ;;
	*) echo "h200.sh: unknown step '$s'" >>"$out/summary.txt" ;;
	esac
done
pack
cat "$out/summary.txt"
