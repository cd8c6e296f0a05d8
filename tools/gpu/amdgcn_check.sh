#!/bin/sh
# tools/gpu/amdgcn_check.sh: builds OpenCL C for AMD GPUs on a machine without one: clang's
# AMDGPU back end for amdgcn-amd-amdhsa at each -mcpu, Debian's libclc (libclc-15)
# supplying the OpenCL built-ins, ld.lld linking the code object. A file that starts with
# `// build options: ...` (fieldfuse compile --emit cl --target FIXTURE) is built with
# those options, as the runtime builds it for that device; -cl-std=CL1.2 is what a build
# without -cl-std gets from a driver.
#
# What it proves: the program is OpenCL C that clang (the front end of ROCm's and Mesa's
# OpenCL compilers alike) accepts for AMD, every built-in it calls exists in libclc for
# amdgcn (the link fails on an undefined symbol), and the back end selects and allocates
# every kernel for the architecture; --regs reports what that allocation needs. What it
# cannot: that the results are right or fast (a GPU), or that ROCm builds it the same way
# (ROCm links its own device libraries with a newer LLVM, so its register counts differ
# somewhat; Mesa's radeonsi links libclc, as here).
#
#   amdgcn_check.sh [--mcpu "gfx90a gfx1100"] [--regs] FILE.cl...
#
# --regs prints, per file and architecture, each kernel's code bytes, VGPRs (and AGPRs,
# gfx90a's accumulation registers), SGPRs, spilled VGPRs and SGPRs, scratch bytes per
# work-item and waves per SIMD (occupancy) as the compiler's kernel info reports them.
#
# Exit 0 when every file builds and links for every architecture; 1 otherwise; 2 on bad
# usage or a missing tool (named). One toolchain bug is not a failure: LLVM 15's on GFX11.0
# (below), printed as a KNOWN line with the kernel count it affects.
#
# Tools: CLANG (default: clang-15, then clang), AMDGCN_LIBCLC (default
# /usr/lib/clc/amdgcn--amdhsa.bc); clang's AMDGPU driver links with the ld.lld beside it or
# on PATH (Debian: lld-15) and takes no other.
set -u

mcpus="gfx90a gfx1100"
regs=0
while [ $# -gt 0 ]; do
	case $1 in
	--mcpu) mcpus=${2:?--mcpu takes a list}; shift 2 ;;
	--regs) regs=1; shift ;;
	-*) echo "amdgcn_check.sh: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: amdgcn_check.sh [--mcpu \"gfx90a gfx1100\"] [--regs] FILE.cl..." >&2; exit 2; }

. "$(dirname "$0")/check_lib.sh"
pick_clang amdgcn_check.sh
libclc=${AMDGCN_LIBCLC:-/usr/lib/clc/amdgcn--amdhsa.bc}
[ -r "$libclc" ] || { echo "amdgcn_check.sh: no libclc at $libclc (Debian: libclc-15)" >&2; exit 2; }
"$clang" -print-targets 2>/dev/null | grep -q amdgcn || { echo "amdgcn_check.sh: $clang has no amdgcn target" >&2; exit 2; }
# -print-prog-name answers the bare name when it finds no such program
lld=$("$clang" -print-prog-name=ld.lld)
[ -x "$lld" ] || { echo "amdgcn_check.sh: $clang finds no ld.lld (Debian: lld-15)" >&2; exit 2; }

# LLVM before 16 allocates v_mad_u64_u32's destination over its addend on GFX11.0, which
# that hardware computes wrongly (llvm/llvm-project#59358, closed December 2022); its own
# assembler rejects the result. Only that error, only there, is reported as KNOWN.
old_llvm=0
[ "$("$clang" -dumpversion | cut -d. -f1)" -lt 16 ] 2>/dev/null && old_llvm=1

# cl_build MCPU FILE OUT [FLAG]: the file as the driver builds it, to OUT (a code object, or
# assembly with -S)
cl_build() {
	# -nogpulib: no ROCm device libraries (libclc stands in); libclc's triple is
	# amdgcn-unknown-amdhsa, the same target, hence -Wno-linker-warnings.
	# $opts unquoted: the driver splits its build options at spaces too
	# shellcheck disable=SC2086
	"$clang" -x cl -cl-std=CL1.2 -target amdgcn-amd-amdhsa -mcpu="$1" -nogpulib \
		-Xclang -finclude-default-header -Xclang -mlink-builtin-bitcode -Xclang "$libclc" \
		-Wno-linker-warnings -O3 $opts ${4:-} -o "$3" "$2"
}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
for f; do
	[ -r "$f" ] || { echo "amdgcn_check.sh: cannot read $f" >&2; exit 2; }
	opts=$(build_options "$f")
	for mcpu in $mcpus; do
		if ! cl_build "$mcpu" "$f" "$tmp/k.s" -S 2>"$tmp/err"; then
			echo "FAIL $f ($mcpu): clang:"; head -40 "$tmp/err"; fail=1; continue
		fi
		# assembled and linked as the driver loads it: an undefined symbol (a built-in
		# libclc lacks for amdgcn) fails here, not at -S
		known=
		if ! "$clang" -target amdgcn-amd-amdhsa -mcpu="$mcpu" -o "$tmp/k.hsaco" "$tmp/k.s" \
			2>"$tmp/err"; then
			if [ $old_llvm = 1 ] && case $mcpu in gfx110*) true ;; *) false ;; esac &&
				! grep ': error: ' "$tmp/err" | grep -qv 'destination must be different than all sources' &&
				! grep -A1 ': error: ' "$tmp/err" | grep -v -e ': error: ' -e '^--$' | grep -qv 'v_mad_[iu]64_[iu]32' &&
				cl_build "$mcpu" "$f" "$tmp/k.hsaco" 2>/dev/null; then
				# straight to the code object (no assembler check): linked, but miscompiled;
				# the kernels are the functions whose bodies hold the rejected lines
				bad=$(sed -n 's/^[^:]*k\.s:\([0-9]*\):.*: error: .*/\1/p' "$tmp/err" | awk -v s="$tmp/k.s" '
					{ want[$1] = 1 } END { while ((getline l < s) > 0) { n++
						if (l ~ /^[A-Za-z_][A-Za-z0-9_]*:/) { k = l; sub(/:.*/, "", k) }
						if (n in want && !(k in seen)) { seen[k] = 1; out = out (out ? " " : "") k } }
						print out }')
				known="; LLVM $("$clang" -dumpversion) bug llvm/llvm-project#59358 in $bad: v_mad_u64_u32 over its addend"
			else
				echo "FAIL $f ($mcpu): link:"; head -40 "$tmp/err"; fail=1; continue
			fi
		fi
		n=$(grep -c '^; Kernel info:' "$tmp/k.s")
		echo "$([ -n "$known" ] && echo KNOWN || echo 'ok  ') $f ($mcpu, $n kernels${opts:+, $opts}$known)"
		[ $regs = 1 ] || continue
		# the kernel info comments follow each .amdhsa_kernel block; spill counts are only in
		# the code object metadata (YAML at the end, one "  - " entry per kernel)
		awk -v mcpu="$mcpu" '
			/^[ \t]*\.amdhsa_kernel / { k = $2; order[++nk] = k }
			/^; codeLenInByte = / { bytes[k] = $4 }
			/^; NumSgprs: / { sg[k] = $3 }
			/^; NumVgprs: / { vg[k] = $3 }
			/^; NumAgprs: / { ag[k] = $3 }
			/^; ScratchSize: / { scratch[k] = $3 }
			/^; Occupancy: / { occ[k] = $3 }
			/^    \.name: / { m = $2 }
			/^    \.vgpr_spill_count: / { vspill[m] = $2 }
			/^    \.sgpr_spill_count: / { sspill[m] = $2 }
			END { for (i = 1; i <= nk; i++) { k = order[i]
				printf "     %-14s %-7s %6d bytes %4d vgpr %3d agpr %3d sgpr %4d vspill %3d sspill %5d scratch %2d waves\n",
					k, mcpu, bytes[k], vg[k], ag[k], sg[k], vspill[k], sspill[k], scratch[k], occ[k] } }' "$tmp/k.s"
	done
done
exit $fail
