#!/bin/sh
# tools/codegen_snapshot.sh: writes the generated OpenCL of a fixed set of programs under
# several code-generation settings into one directory, so that a refactoring of the code
# generator can be shown to leave its output byte-identical:
#
#   tools/codegen_snapshot.sh /tmp/before            # on the old build
#   tools/codegen_snapshot.sh /tmp/after             # on the new build
#   diff -r /tmp/before /tmp/after && echo identical
#
# Programs: every bench/workloads/*.hlo, every tests/codegen/*.hlo (small programs that
# reach the kernel variants the workloads miss: several inversions in loops, an inversion
# read at two indices, batched inversions of small fields, vector instances, reductions of
# extensions and of 256-bit products), every program of tests/programs.c at N = 1000 and
# N = 4096, ZKX's own test programs (tests/zkx/programs: point types, msm, fft), and the
# random programs of fieldfuse-soak seeds 1..SEEDS (default 200), with point steps in
# seeds 1..SEEDS/4 over the curves' scalar fields (--points-one-in 2, G1 and G2: the
# point kernels of codegen/kgen_point.c).
# Settings: `compile --emit cl` with --lanes 1, 4, 8 and 16 (lanes > 1: the CPU code),
# and --no-fuse with --lanes 1 and 4.
# Environment: BUILD (default build), SEEDS. Exit status: 0 when every program compiled;
# a program that fails to compile has its error in <name>.err instead.
set -eu

out=${1:?usage: tools/codegen_snapshot.sh OUTDIR}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
seeds=${SEEDS:-200}
ff=$build/tools/fieldfuse
soak=$build/tools/fieldfuse-soak

mkdir -p "$out/programs" "$out/cl"
progs=$out/programs

cp "$root"/bench/workloads/*.hlo "$progs/"
for f in "$root"/tests/codegen/*.hlo; do
	cp "$f" "$progs/extra_$(basename "$f")"
done
for f in "$root"/tests/zkx/programs/*.hlo; do
	cp "$f" "$progs/zkx_$(basename "$f")"
done

# tests/programs.c's programs, through its own text substitution
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/dump.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include "programs.h"
int main(int argc, char **argv)
{
	for (int i = 0; i < ffu_test_n_programs; i++) {
		for (int s = 0; s < 2; s++) {
			long long n = s ? 4096 : 1000;
			char path[512];
			snprintf(path, sizeof path, "%s/test_%s_%lld.hlo", argv[1], ffu_test_programs[i].name, n);
			char *t = ffu_test_program_text(&ffu_test_programs[i], n);
			FILE *f = fopen(path, "w");
			if (!t || !f || fputs(t, f) < 0 || fclose(f))
				return 1;
			free(t);
		}
	}
	return argc < 2;
}
EOF
cc -std=c11 -O0 -I"$root/tests" -o "$tmp/dump" "$tmp/dump.c" "$root/tests/programs.c"
"$tmp/dump" "$progs"

s=1
while [ "$s" -le "$seeds" ]; do
	"$soak" --print "$s" > "$progs/soak_$s.hlo"
	if [ "$s" -le $((seeds / 4)) ]; then
		"$soak" --print "$s" --points-one-in 2 \
			--types bn254_sf,bn254_sf_mont,bls12_381_sf,bls12_381_sf_mont > "$progs/soak_points_$s.hlo"
	fi
	s=$((s + 1))
done

n=0
fail=0
for p in "$progs"/*.hlo; do
	b=$(basename "$p" .hlo)
	for cfg in "1" "4" "8" "16" "1 --no-fuse" "4 --no-fuse"; do
		set -- $cfg
		tag="l$1${2:+_nofuse}"
		if ! "$ff" compile "$p" --emit cl --lanes $cfg > "$out/cl/$b.$tag.cl" 2> "$out/cl/$b.$tag.err"; then
			fail=$((fail + 1))
		else
			rm -f "$out/cl/$b.$tag.err"
		fi
		# the message names the program's path: the same in every snapshot
		[ -f "$out/cl/$b.$tag.err" ] && sed -i "s|$progs/||g" "$out/cl/$b.$tag.err"
		n=$((n + 1))
	done
done
echo "$n compilations of $(ls "$progs" | wc -l) programs into $out/cl ($fail failed to compile: see *.err)"
