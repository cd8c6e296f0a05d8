#!/bin/sh
# tools/gpu/vendor_check.sh: every bench workload's kernels as AMD and NVIDIA devices would
# get them, compiled for those vendors on a machine with neither: `fieldfuse compile --emit
# cl --target FIXTURE` for a recorded device, then tools/gpu/amdgcn_check.sh (AMD) and
# ptx_check.sh (NVIDIA) on the result. A kernel that does not build for a vendor fails the
# run, the workload and the vendor named; this is how vendor breakage shows up before anyone
# with the hardware runs it. What the checkers can and cannot prove is in their headers.
#
#   vendor_check.sh [--regs] [--emit-only] [--vendors amd,nvidia] [--set quick|rest] FIELDFUSE [WORKLOAD.hlo...]
#
# Fixtures and architectures (tests/fixtures/caps/):
#   amd_radeon_vii  (gfx906, the gfx9 wave64 profile row) built for gfx90a (CDNA 2, MI200,
#                   the same row)
#   amd_rx7900xtx   (gfx1100, RDNA 3 wave32)  built for gfx1100
#   nvidia_h200     (sm_90)                   built for sm_90 with the carry chains it gets
# Workloads: the arguments, or every bench/workloads/*.hlo; --set quick takes one workload
# per kernel kind and field class (below: what the README's test command runs), --set rest
# every other (the deep run adds them: tests/meson.build). --regs adds the checkers'
# per-kernel registers (bench/results/vendor-static.txt is one such run). Tools as the
# checkers take them (CLANG, AMDGCN_LIBCLC, LIBCLC, PTXAS).
#
# --emit-only stops after fieldfuse's part (the generation for every fixture), without the
# vendors' compilers: the sanitizer build runs it so, as the compilers' minutes would only
# repeat what the plain build's run proved (tests/meson.build).
#
# Exit 0 when every workload builds for every vendor; 1 otherwise; 2 on bad usage or a
# missing tool.
set -u

regs=
emit_only=
vendors=amd,nvidia
wset=
# one workload per kernel kind (loop, reduce, fft, dot, msm) and field class (31-bit,
# 256-bit, an extension): the msm and 381-bit workloads of the rest take minutes each
quick="seed_bb seed_bn254 fieldops_babybearx4 sumcheck ntt_babybear ntt_bn254_sf dot_rows_babybear msm_bn254_g1"
while [ $# -gt 0 ]; do
	case $1 in
	--regs) regs=1; shift ;;
	--emit-only) emit_only=1; shift ;;
	--vendors) vendors=${2:?--vendors takes a list}; shift 2 ;;
	--set) wset=${2:?--set takes quick or rest}; shift 2 ;;
	-*) echo "vendor_check.sh: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: vendor_check.sh [--regs] [--emit-only] [--vendors amd,nvidia] [--set quick|rest] FIELDFUSE [WORKLOAD.hlo...]" >&2; exit 2; }
fieldfuse=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
. "$here/check_lib.sh"
if [ $# -eq 0 ]; then
	for w in "$here"/../../bench/workloads/*.hlo; do
		case " $quick " in *" $(basename "$w" .hlo) "*) in_quick=1 ;; *) in_quick= ;; esac
		case $wset in
		quick) [ -n "$in_quick" ] || continue ;;
		rest) [ -z "$in_quick" ] || continue ;;
		'') ;;
		*) echo "vendor_check.sh: --set takes quick or rest, not '$wset'" >&2; exit 2 ;;
		esac
		set -- "$@" "$w"
	done
	[ $# -gt 0 ] || { echo "vendor_check.sh: no workload in bench/workloads for --set $wset" >&2; exit 2; }
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# fixture:architecture:checker, the checker's own architecture flag after the second colon
targets=
case ",$vendors," in *,amd,*) targets="$targets amd_radeon_vii:gfx90a amd_rx7900xtx:gfx1100" ;; esac
case ",$vendors," in *,nvidia,*) targets="$targets nvidia_h200:sm_90" ;; esac
[ -n "$targets" ] || { echo "vendor_check.sh: --vendors takes amd, nvidia or both" >&2; exit 2; }

# one OpenCL C file per workload and fixture, named so that a checker's FAIL line names both
for t in $targets; do
	fixture=${t%%:*}
	mkdir -p "$tmp/$fixture"
	for w; do
		name=$(basename "$w" .hlo)
		if ! "$fieldfuse" compile "$w" --emit cl --target "$fixture" -o "$tmp/$fixture/$name.cl"; then
			echo "FAIL $name for $fixture: fieldfuse compile"
			exit 1
		fi
	done
done
if [ -n "$emit_only" ]; then
	echo "vendor_check: generated $# workloads for$targets (--emit-only: no vendor compiler run)"
	exit 0
fi

# --regs output is a record (bench/results/vendor-static.txt): say which compilers made it
if [ -n "$regs" ]; then
	pick_clang vendor_check.sh
	echo "# compilers: clang $("$clang" -dumpversion) ($clang; AMDGPU and NVPTX back ends)," \
		"$("$clang" -print-prog-name=ld.lld) $("$("$clang" -print-prog-name=ld.lld)" --version 2>/dev/null | sed 's/ (.*//')"
	case $targets in *nvidia*)
		ptxas=${PTXAS:-$(pick ptxas /usr/local/cuda/bin/ptxas)}
		echo "# ptxas $("$ptxas" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\),.*/\1/p') ($ptxas)" ;;
	esac
	echo "# static compiler output, not times on the hardware; what it shows and cannot: tools/gpu/amdgcn_check.sh, ptx_check.sh"
fi
fail=0
: >"$tmp/failed"
: >"$tmp/known"
: >"$tmp/all"
for t in $targets; do
	fixture=${t%%:*}
	arch=${t#*:}
	start=$(date +%s)
	# a checker's files in one call, so a failure in one workload still checks the others
	case $fixture in
	amd_*) sh "$here/amdgcn_check.sh" --mcpu "$arch" ${regs:+--regs} "$tmp/$fixture"/*.cl ;;
	nvidia_*) sh "$here/ptx_check.sh" --arch "$arch" --variants chains ${regs:+--sass} "$tmp/$fixture"/*.cl ;;
	esac >"$tmp/log" 2>&1
	rc=$?
	# the temporary folder says nothing; fixture/workload.cl says everything
	sed "s|$tmp/||g" "$tmp/log" | tee "$tmp/shown"
	grep "^FAIL" "$tmp/shown" >>"$tmp/failed"
	grep "^KNOWN" "$tmp/shown" >>"$tmp/known"
	cat "$tmp/shown" >>"$tmp/all"
	echo "vendor_check: $fixture ($arch): $# workloads, $(($(date +%s) - start)) s, status $rc"
	[ $rc = 2 ] && exit 2
	[ $rc = 0 ] || fail=1
done
# --regs: the checkers' kernel lines side by side, one row per workload and kernel
if [ -n "$regs" ]; then
	awk '
		/^(ok|KNOWN|FAIL)/ { split($2, p, "/"); w = p[2]; sub(/\.cl$/, "", w) }
		/^     ffu_/ && $3 ~ /^[0-9]+$/ && $4 == "bytes" {   # amdgcn_check.sh
			key = w " " $1; if (!(key in seen)) { seen[key] = 1; order[++n] = key }
			amd[key, $2] = sprintf("%4d %3d %3d %4d %2d", $5 + $7, $9, $11 + $13, $15, $17) }
		/^     ffu_/ && $4 == "instructions" {               # ptx_check.sh
			key = w " " $1; if (!(key in seen)) { seen[key] = 1; order[++n] = key }
			nv[key] = sprintf("%4d %6d", $5, $3) }
		END {
			printf "\n%-22s %-13s | %-20s | %-20s | %-11s\n", "", "", "gfx90a", "gfx1100", "sm_90"
			printf "%-22s %-13s | %-20s | %-20s | %-11s\n", "workload", "kernel", "vgpr sgp spl  scr wv", "vgpr sgp spl  scr wv", "regs  instr"
			for (i = 1; i <= n; i++) { split(order[i], k, " ")
				printf "%-22s %-13s | %-20s | %-20s | %-11s\n", k[1], k[2], amd[order[i], "gfx90a"], amd[order[i], "gfx1100"], nv[order[i]] } }' "$tmp/all"
	echo "vgpr: VGPRs + AGPRs; sgp: SGPRs; spl: VGPRs + SGPRs spilled; scr: scratch bytes per work-item;"
	echo "wv: waves per SIMD (occupancy; gfx90a's most is 8, gfx1100's 16); regs, instr: ptxas registers, SASS instructions"
fi
if [ -s "$tmp/known" ]; then
	echo "vendor_check: built, but by a compiler with a known bug (amdgcn_check.sh says which):"
	cat "$tmp/known"
fi
if [ $fail = 1 ]; then
	echo "vendor_check: failed (fixture/workload.cl, architecture):"
	cat "$tmp/failed"
fi
exit $fail
