#!/usr/bin/env python3
"""
bench/jax/seed_bb.py: the seed_bb expression, (x + y) * x over BabyBear, written in JAX, so
XLA's own fusion can be timed next to fieldfuse on the same machine. Not part of the build
or of CI: JAX comes from PyPI (`pip install jax`; a CUDA-enabled JAX on an NVIDIA machine).

BabyBear has no JAX type, so the expression is written the way a JAX user would write it:
uint32 inputs, a conditional subtraction for the sum, a uint64 product and `%` by p.
XLA fuses the whole expression into one loop (one kernel on a GPU).

Timing: device arrays built once, a jitted function warmed up, then the median, min and max
wall time of `runs` calls each ended by block_until_ready (no host <-> device copies:
comparable to `fieldfuse bench --timing kernel`, plus JAX's per-call dispatch).
Every run's result is checked on a sample against Python integers; a wrong result exits 1.

Usage: seed_bb.py [--k A..B] [--runs N] [--json FILE] [--fieldfuse PATH [--device SEL]]
With --fieldfuse, the same k range is also run through `fieldfuse bench seed_bb` right after,
and one table shows both (ratios from the same invocation).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

P = 0x78000001


def parse_k(text):
    a, _, b = text.partition("..")
    return int(a), int(b or a)


def time_jax(k, runs, warmup):
    import jax
    import jax.numpy as jnp
    import numpy as np

    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(k)
    n = 1 << k
    xh = rng.integers(0, P, n, dtype=np.uint32)
    yh = rng.integers(0, P, n, dtype=np.uint32)
    x, y = jax.device_put(xh), jax.device_put(yh)

    @jax.jit
    def seed_bb(x, y):
        s = x + y  # < 2^32: both < p < 2^31
        s = jnp.where(s >= P, s - P, s)
        return ((s.astype(jnp.uint64) * x.astype(jnp.uint64)) % P).astype(jnp.uint32)

    for _ in range(warmup):
        seed_bb(x, y).block_until_ready()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        out = seed_bb(x, y).block_until_ready()
        times.append((time.perf_counter() - t0) * 1e3)
    got = np.asarray(out)
    for i in rng.integers(0, n, 1000):
        want = (int(xh[i]) + int(yh[i])) * int(xh[i]) % P
        if int(got[i]) != want:
            sys.exit(f"seed_bb.py: k={k} element {i}: JAX gave {int(got[i])}, expected {want}")
    return {"tool": "jax", "version": jax.__version__, "device": str(jax.devices()[0]),
            "workload": "seed_bb", "k": k, "ms": statistics.median(times), "min_ms": min(times),
            "max_ms": max(times), "gbps": 12 * n / statistics.median(times) / 1e6, "runs": runs}


def time_fieldfuse(exe, device, ka, kb, runs):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "ff.json")
        cmd = [exe, "bench", "seed_bb", "--device", device, "--k", f"{ka}..{kb}", "--runs", str(runs),
               "--json", path]
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL)
        if r.returncode:
            sys.exit(f"seed_bb.py: {' '.join(cmd)} exited with {r.returncode}")
        with open(path) as f:
            return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k", default="20..24", type=parse_k)
    ap.add_argument("--runs", default=10, type=int)
    ap.add_argument("--warmup", default=3, type=int)
    ap.add_argument("--json")
    ap.add_argument("--fieldfuse")
    ap.add_argument("--device", default="pocl")
    a = ap.parse_args()
    ka, kb = a.k
    if not (1 <= ka <= kb <= 30) or a.runs < 1:
        ap.error("--k A..B with 1 <= A <= B <= 30, --runs >= 1")
    rows = [time_jax(k, a.runs, a.warmup) for k in range(ka, kb + 1)]
    ff = time_fieldfuse(a.fieldfuse, a.device, ka, kb, a.runs) if a.fieldfuse else None
    fused = {r["k"]: r for r in ff["results"] if r["mode"] == "fused"} if ff else {}
    print(f"{'k':>3} {'jax ms':>9} {'jax GB/s':>9}" + (f" {'fieldfuse ms':>13} {'jax/fieldfuse':>14}" if ff else ""))
    for r in rows:
        line = f"{r['k']:>3} {r['ms']:>9.3f} {r['gbps']:>9.1f}"
        if r["k"] in fused:
            line += f" {fused[r['k']]['ms']:>13.3f} {r['ms'] / fused[r['k']]['ms']:>13.2f}x"
        print(line)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"jax": rows, "fieldfuse": ff}, f, indent=1)


if __name__ == "__main__":
    main()
