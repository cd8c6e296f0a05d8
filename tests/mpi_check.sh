#!/bin/sh
# tests/mpi_check.sh FIELDFUSE: `mpirun -np N fieldfuse run` (docs/hlo.md "Collectives"),
# one rank per process, PoCL on every rank and PoCL + Rusticl mixed. Each run's --check
# compares every rank with the interpreter's simulation of all ranks; rank 0's output is
# also compared with an independent program: the one-process run of the same program, and
# for the sharded msm (each rank an msm of its half, then an all-reduce of the points) and
# sumcheck round the interpreter's run of the same computation on the whole input. A
# failing rank must stop every rank with its exit code, naming itself.
set -eu
ff=$1
src=${FFU_SOURCE_ROOT:?}/tests/mpi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpi="mpirun --allow-run-as-root --oversubscribe"
fail() { echo "mpi_check: $*" >&2; exit 1; }
run() { "$ff" run "$@"; }
# must_fail WHAT CMD...: CMD must fail; its exit code into $code, its stderr into $tmp/err
must_fail() {
	what=$1
	shift
	if "$@" 2>"$tmp/err"; then
		fail "$what went unnoticed"
	else
		code=$?
	fi
}

# 3 ranks (not a power of two), PoCL on each: the same outputs as one process holding all three
run "$src/chain.hlo" --device pocl --random 5 -o "$tmp/one.txt"
$mpi -np 3 "$ff" run "$src/chain.hlo" --device pocl --random 5 --check -o "$tmp/mpi.txt" || fail "chain on 3 PoCL ranks"
cmp "$tmp/one.txt" "$tmp/mpi.txt" || fail "chain: 3 ranks differ from one process"

# PoCL and Rusticl mixed
c="$ff run $src/chain.hlo --random 5 --check -o $tmp/mix.txt"
$mpi -np 1 $c --device pocl : -np 1 $c --device rusticl : -np 1 $c --device pocl || fail "chain on PoCL + Rusticl"
cmp "$tmp/one.txt" "$tmp/mix.txt" || fail "chain: PoCL + Rusticl differ from one process"

# every collective (all-reduce sum and product, all-gather and reduce-scatter along either
# dimension, all-to-all, collective-permute, replica-id, partition-id) in XLA's four group
# modes, 2 replicas x 2 partitions: each as MPI's own operation on its group's communicator,
# every rank against the simulation, rank 0's output against the interpreter's
run "$src/collectives.hlo" --interp --random 4 -o "$tmp/coll_interp.txt"
$mpi -np 4 "$ff" run "$src/collectives.hlo" --device pocl --random 4 --check -o "$tmp/coll.txt" || fail "collectives on 4 ranks"
cmp "$tmp/coll_interp.txt" "$tmp/coll.txt" || fail "collectives: rank 0 differs from the interpreter"
# the same with PoCL and Rusticl ranks interleaved (all@rank: 0 and 2 on PoCL, 1 and 3 on Rusticl)
$mpi -np 4 "$ff" run "$src/collectives.hlo" --device all@rank --random 4 --check -o "$tmp/coll_mix.txt" ||
	fail "collectives on PoCL + Rusticl"
cmp "$tmp/coll_interp.txt" "$tmp/coll_mix.txt" || fail "collectives on PoCL + Rusticl: rank 0 differs from the interpreter"
# 3 ranks (not a power of two): products, pieces of 6 in 3, a permute cycle, groups out of
# order, and an all-reduce of BN254 points (every rank's (id + 1) g, summed)
run "$src/collectives3.hlo" --interp --random 2 -o "$tmp/c3_interp.txt"
$mpi -np 3 "$ff" run "$src/collectives3.hlo" --device pocl --random 2 --check -o "$tmp/c3.txt" || fail "collectives on 3 ranks"
cmp "$tmp/c3_interp.txt" "$tmp/c3.txt" || fail "collectives on 3 ranks: rank 0 differs from the interpreter"

# the wrong number of ranks: exit 2 and why
must_fail "chain on 2 ranks" $mpi -np 2 "$ff" run "$src/chain.hlo" --device pocl --random 5 -o /dev/null
[ "$code" -eq 2 ] || fail "chain on 2 ranks: exit $code, expected 2"
grep -q "runs on 3 ranks (replica_count=3 x num_partitions=1); mpirun started 2" "$tmp/err" || fail "no reason: $(cat "$tmp/err")"

# a rank that fails stops every rank, in time, naming itself
c="$ff run $src/chain.hlo --random 5 -o /dev/null"
must_fail "a failing rank" timeout 300 $mpi -np 1 $c --device pocl : -np 1 $c --device no-such-device : -np 1 $c --device pocl
[ "$code" -ne 124 ] || fail "a failing rank left the others waiting (timeout)"
[ "$code" -eq 1 ] || fail "a failing rank: exit $code, expected its own 1 on every rank"
grep -q "error: rank 1 of 3: no OpenCL device matches 'no-such-device'" "$tmp/err" || fail "the failing rank is not named: $(cat "$tmp/err")"
# every rank failing alike (each tells the others at the first point): exit 1, no crash
# (MPI_Abort from every rank at once has crashed Open MPI's teardown: exit 139)
must_fail "ranks that all failed" timeout 300 $mpi -np 3 $c --device no-such-device
[ "$code" -eq 1 ] || fail "every rank failing: exit $code, expected 1"

# ranks given different programs (MPMD syntax): refused before any work, exit 2, rank 0 says which
must_fail "ranks running different programs" $mpi -np 1 "$ff" run "$src/msm_tiled.hlo" --device pocl --random 1 -o /dev/null : \
	-np 1 "$ff" run "$src/sumcheck_tiled.hlo" --device pocl --random 1 -o /dev/null
[ "$code" -eq 2 ] || fail "different programs: exit $code, expected 2"
grep -q "rank 1 runs another program than rank 0" "$tmp/err" || fail "different programs: $(cat "$tmp/err")"

# a rank stuck before a collective (here: reading a FIFO nobody writes) makes the others
# give up after --mpi-timeout and stop every rank (exit 1), naming the wait
mkfifo "$tmp/fifo"
c="$ff run $src/sumcheck_tiled.hlo --device pocl --random 1 --mpi-timeout 3 -o /dev/null"
must_fail "a stuck rank" timeout 120 $mpi -np 1 $c : -np 1 $c --input f="$tmp/fifo"
[ "$code" -eq 1 ] || fail "a stuck rank: exit $code, expected 1 (124: nobody gave up)"
grep -q "rank 0 of 2: MPI_Iallgather (the ranks' status): the other ranks did not all arrive within 3 s" "$tmp/err" ||
	fail "a stuck rank: $(cat "$tmp/err")"

# a sharded msm: the two halves' msms all-reduced give the whole input's msm
run "$src/msm_whole.hlo" --interp --random 7 -o "$tmp/whole.txt"
$mpi -np 2 "$ff" run "$src/msm_sharded.hlo" --device pocl --random 7 --check -o "$tmp/sharded.txt" || fail "sharded msm"
cmp "$tmp/whole.txt" "$tmp/sharded.txt" || fail "sharded msm differs from the whole msm"
# a sharded sumcheck round: each rank sums its part of both halves of the table (all-reduce:
# the round polynomial's g(0), g(1)) and folds its part by the challenge (all-gather: the
# next table), against the same round on the whole table
run "$src/sumcheck_whole.hlo" --interp --random 9 -o "$tmp/sc_whole.txt"
$mpi -np 2 "$ff" run "$src/sumcheck_sharded.hlo" --device pocl --random 9 --check -o "$tmp/sc.txt" || fail "sharded sumcheck"
cmp "$tmp/sc_whole.txt" "$tmp/sc.txt" || fail "sharded sumcheck round differs from the whole round"

# sharding= on parameters and ROOT (docs/hlo.md "Sharding"): every rank reads the whole
# value files and takes its tile; rank 0 writes the joined outputs. Against the same
# computation on the whole arrays, under the interpreter.
seq 1 24 >"$tmp/x.txt"
seq 7 12 >"$tmp/y.txt"
ins="--input x=$tmp/x.txt --input 1=$tmp/y.txt"
run "$src/chain_whole.hlo" --interp $ins -o "$tmp/cw.txt"
run "$src/chain_tiled.hlo" --interp $ins -o "$tmp/ct_interp.txt"
cmp "$tmp/cw.txt" "$tmp/ct_interp.txt" || fail "tiled chain (interpreter) differs from the whole chain"
run "$src/chain_tiled.hlo" --device pocl $ins --check -o "$tmp/ct_one.txt" || fail "tiled chain in one process"
cmp "$tmp/cw.txt" "$tmp/ct_one.txt" || fail "tiled chain (one process) differs from the whole chain"
# 2 x 2 tiles over 4 ranks, y's halves each held by two (last_tile_dim_replicate)
$mpi -np 4 "$ff" run "$src/chain_tiled.hlo" --device pocl $ins --check -o "$tmp/ct.txt" || fail "tiled chain on 4 ranks"
cmp "$tmp/cw.txt" "$tmp/ct.txt" || fail "tiled chain (4 ranks) differs from the whole chain"
# .bin value files: without --check each rank reads only its tile's rows; an element out of
# range is reported by the rank whose tile holds it (element 17 is row 2, column 5: tile
# (1,1), partition 3), exit 2
python3 - "$tmp" <<'PY'
import struct, sys
d = sys.argv[1]
open(d + "/x.bin", "wb").write(b"".join(struct.pack("<I", v) for v in range(1, 25)))
open(d + "/y.bin", "wb").write(b"".join(struct.pack("<I", v) for v in range(7, 13)))
bad = list(range(1, 25))
bad[17] = 0x78000001  # BabyBear's p
open(d + "/xbad.bin", "wb").write(b"".join(struct.pack("<I", v) for v in bad))
PY
$mpi -np 4 "$ff" run "$src/chain_tiled.hlo" --device pocl --input x="$tmp/x.bin" --input y="$tmp/y.bin" -o "$tmp/cb.txt" ||
	fail "tiled chain from .bin tiles"
cmp "$tmp/cw.txt" "$tmp/cb.txt" || fail "tiled chain from .bin tiles differs from the whole chain"
must_fail "an element out of range in a .bin tile" $mpi -np 4 "$ff" run "$src/chain_tiled.hlo" --device pocl --input x="$tmp/xbad.bin" --input y="$tmp/y.bin" \
	-o /dev/null
[ "$code" -eq 2 ] || fail "bad .bin tile: exit $code, expected 2"
grep -q "xbad.bin: error: rank 3 of 4: element 17 is not less than the babybear modulus" "$tmp/err" ||
	fail "bad .bin tile: $(cat "$tmp/err")"
# msm: each rank's half of the scalars and bases, partial sums all-reduced across partitions
$mpi -np 2 "$ff" run "$src/msm_tiled.hlo" --device pocl --random 7 --check -o "$tmp/mt.txt" || fail "tiled msm"
cmp "$tmp/whole.txt" "$tmp/mt.txt" || fail "tiled msm differs from the whole msm"
# sumcheck round on PoCL + Rusticl: the folded table joined from the ranks' halves by the
# ROOT's sharding (no all-gather in the program)
c="$ff run $src/sumcheck_tiled.hlo --random 9 --check -o $tmp/st.txt"
$mpi -np 1 $c --device pocl : -np 1 $c --device rusticl || fail "tiled sumcheck on PoCL + Rusticl"
cmp "$tmp/sc_whole.txt" "$tmp/st.txt" || fail "tiled sumcheck round differs from the whole round"

# SEL@rank: the node-local rank's device among SEL's matches (all@rank: rank 0 PoCL, rank 1
# Rusticl here, as `fieldfuse devices` lists them); the JSON names each rank's device
$mpi -np 2 "$ff" run "$src/sumcheck_tiled.hlo" --device all@rank --random 9 --check --json -o "$tmp/sr.txt" >"$tmp/sr.json" ||
	fail "sumcheck on all@rank"
cmp "$tmp/sc_whole.txt" "$tmp/sr.txt" || fail "sumcheck on all@rank differs from the whole round"
python3 - "$tmp/sr.json" "$("$ff" devices | awk '/^[0-9]+:[0-9]+ /{print $1}' | head -2 | tr '\n' ' ')" <<'PY' || fail "all@rank: $(cat "$tmp/sr.json")"
import json, sys
got = json.load(open(sys.argv[1]))["rank_devices"]
want = sys.argv[2].split()
assert got == want, (got, want)
PY
echo "mpi_check: ok"
