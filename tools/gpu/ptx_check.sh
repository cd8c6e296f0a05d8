#!/bin/sh
# tools/gpu/ptx_check.sh: builds OpenCL C as NVIDIA's compiler sees it (__NV_CL_C_VERSION
# defined, so the inline-PTX carry chains of cl/carry.cl and the vload8 paths are in) and
# assembles it with NVIDIA's ptxas, on a machine without a GPU. Clang's NVPTX back end
# stands in for NVIDIA's front end (both are LLVM-based; clang spells inline asm
# `__asm__`), Debian's libclc supplies the OpenCL built-ins, ptxas (CUDA toolkit) makes
# the SASS. What it proves: every asm statement is valid PTX that ptxas accepts for the
# target, and the program builds for NVIDIA with the chains, without them (FFU_NO_PTX) and
# with 64-bit limbs (FFU_MONT256_LIMB64). What it cannot: that the results are right (the
# emulated chains are checked against GMP by tests/test_field_device.c) or fast (a GPU).
#
#   ptx_check.sh [--arch sm_90] [--variants "chains portable limb64"] [--sass] [--nvvm] FILE.cl...
#
# A file that starts with `// build options: ...` (fieldfuse compile --emit cl --target
# FIXTURE) is built with those options too, as the runtime builds it for that device.
# --variants picks the builds (all three by default); a fixture's program needs only the
# one its device gets (chains; portable where FIELDFUSE_NO_PTX).
#
# --sass prints, per file and variant, the SASS instruction count and registers of each
# kernel (the static comparison in docs/fields.md). --nvvm compiles with nvcc instead,
# the file read as CUDA through tools/gpu/cl_as_cuda.h (scalar programs only, with
# -DFFU_SCALAR_LOADS): NVIDIA's own optimiser, closer to its OpenCL compiler than clang's
# back end, through whose libclc a 64-bit mul_hi makes 64-bit-limb kernels 1.5-1.8x larger.
#
# Exit 0 when everything assembles and the chained build of a file that uses a 256-bit
# field contains carry instructions; 1 otherwise; 2 on bad usage or a missing tool (named).
#
# Tools: CLANG (default: clang-15, then clang), PTXAS (default: ptxas on PATH, then
# /usr/local/cuda/bin/ptxas), LIBCLC (default /usr/lib/clc/nvptx64--nvidiacl.bc), NVCC
# for --nvvm (default: nvcc on PATH, then /usr/local/cuda/bin/nvcc).
set -u

arch=sm_90
variants="chains portable limb64"
sass=0
nvvm=0
while [ $# -gt 0 ]; do
	case $1 in
	--arch) arch=${2:?--arch takes a value}; shift 2 ;;
	--variants) variants=${2:?--variants takes a list}; shift 2 ;;
	--sass) sass=1; shift ;;
	--nvvm) nvvm=1; shift ;;
	-*) echo "ptx_check.sh: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: ptx_check.sh [--arch sm_90] [--variants LIST] [--sass] [--nvvm] FILE.cl..." >&2; exit 2; }

. "$(dirname "$0")/check_lib.sh"
pick_clang ptx_check.sh
ptxas=${PTXAS:-$(pick ptxas /usr/local/cuda/bin/ptxas)} || { echo "ptx_check.sh: no ptxas (CUDA toolkit)" >&2; exit 2; }
libclc=${LIBCLC:-/usr/lib/clc/nvptx64--nvidiacl.bc}
[ $nvvm = 1 ] || [ -r "$libclc" ] || { echo "ptx_check.sh: no libclc at $libclc (Debian: libclc-15)" >&2; exit 2; }
nvcc=${NVCC:-$(pick nvcc /usr/local/cuda/bin/nvcc)} || [ $nvvm = 0 ] || { echo "ptx_check.sh: --nvvm needs nvcc" >&2; exit 2; }
shim=$(cd "$(dirname "$0")" && pwd)/cl_as_cuda.h
# the SASS counts read the cubin's sections; readelf is in binutils
[ $sass = 0 ] || command -v readelf >/dev/null || { echo "ptx_check.sh: --sass needs readelf" >&2; exit 2; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
for f; do
	[ -r "$f" ] || { echo "ptx_check.sh: cannot read $f" >&2; exit 2; }
	opts=$(build_options "$f")
	for variant in $variants; do
		case $variant in
		chains) defs= ;;
		portable) defs=-DFFU_NO_PTX ;;
		limb64) defs=-DFFU_MONT256_LIMB64 ;; # cl/montn_64.cl, which has no chains
		*) echo "ptx_check.sh: no variant '$variant' (chains, portable, limb64)" >&2; exit 2 ;;
		esac
		defs="$defs $opts"
		# the device's own options may already leave the chains out
		case " $defs " in *" -DFFU_NO_PTX "* | *" -DFFU_MONT256_LIMB64 "*) want_chains=0 ;; *) want_chains=1 ;; esac
		if [ $nvvm = 1 ]; then
			# the OpenCL header's FFU_INLINE has no __device__: give it one
			sed 's/^#define FFU_INLINE static inline.*/#define FFU_INLINE static __device__ __forceinline__/' "$f" \
				>"$tmp/k.cu"
			# nvcc defines the host's __x86_64__ and __SIZEOF_INT128__ in device code too, which
			# NVIDIA's OpenCL compiler does not: FFU_NO_INT128 keeps cl/montn_64.cl's GPU path
			if ! "$nvcc" -arch="$arch" -ptx -O3 -include "$shim" -D__NV_CL_C_VERSION=120 -DFFU_SCALAR_LOADS -DFFU_NO_INT128 $defs \
				-o "$tmp/k.ptx" "$tmp/k.cu" 2>"$tmp/err"; then
				echo "FAIL $f ($variant): nvcc:"; grep -v "warning" "$tmp/err" | head -20; fail=1; continue
			fi
		elif ! "$clang" -x cl -cl-std=CL1.2 -target nvptx64-unknown-nvidiacl -Xclang -finclude-default-header \
			-Xclang -mlink-builtin-bitcode -Xclang "$libclc" -O3 -D__NV_CL_C_VERSION=120 -Dasm=__asm__ \
			$defs -S -o "$tmp/k.ptx" "$f" 2>"$tmp/err"; then
			echo "FAIL $f ($variant): clang:"; cat "$tmp/err"; fail=1; continue
		fi
		if ! "$ptxas" -arch="$arch" -O3 -v "$tmp/k.ptx" -o "$tmp/k.cubin" 2>"$tmp/err"; then
			echo "FAIL $f ($variant): ptxas -arch=$arch:"; grep -v "^ptxas info" "$tmp/err"; fail=1; continue
		fi
		# a file with a multi-word field (field_cl.c's "/* field NAME: cl/montn.cl */"; every
		# field has an FP_PINV, which this used to look for) must use the chains when asked,
		# unless it picks 64-bit limbs itself (a program generated for a CPU's loop kernels)
		chained=$(grep -c 'madc\.hi\.cc\.u32' "$tmp/k.ptx")
		if [ $want_chains = 1 ] && grep -q '^/\* field .*: cl/montn\.cl \*/' "$f" && ! grep -q '^#define FFU_MONT256_LIMB64' "$f" &&
			[ "$chained" -eq 0 ]; then
			echo "FAIL $f: a multi-word field but no carry chains in the PTX"; fail=1
		fi
		if [ $want_chains = 0 ] && [ "$chained" -ne 0 ]; then
			echo "FAIL $f: carry chains in the $variant build"; fail=1
		fi
		echo "ok   $f ($variant, $arch, $chained chained high products)"
		if [ $sass = 1 ]; then
			# ptxas -v: "Compiling entry function 'k'" then "Used N registers"; SASS is 16 bytes
			# an instruction from sm_70 on, so a kernel's .text size / 16 is its count
			awk '/Compiling entry function/ { for (i = 1; i < NF; i++) if ($i == "function") k = $(i + 1); gsub(/['\''"]/, "", k) }
			     /Used [0-9]+ registers/ { for (i = 1; i <= NF; i++) if ($i == "Used") print k, $(i + 1) }' \
				"$tmp/err" | sort >"$tmp/regs"
			readelf -SW "$tmp/k.cubin" 2>/dev/null | awk 'function hex(s,  v, i) { v = 0
				for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
				return v }
			     { for (i = 1; i <= NF; i++) if ($i ~ /^\.text\./) printf "%s %d\n", substr($i, 7), hex($(i + 4)) / 16 }' |
				sort >"$tmp/instr"
			join "$tmp/instr" "$tmp/regs" | while read -r k n r; do
				printf '     %-12s %-8s %6d instructions %4d registers\n' "$k" "$variant" "$n" "$r"
			done
		fi
	done
done
exit $fail
