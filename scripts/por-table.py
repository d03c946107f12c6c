#!/usr/bin/env python3
"""Partial-order reduction, measured (docs/performance.md, "Partial-order
reduction (issue 15)"): states stored and time of `weft check` with and
without `--por` on

  * ESST's token ring, N = 3..10 and its bug variant (`weft gen token-ring`),
    with the paper's Table 1 and 2 (PS-POR) beside;
  * the BEEM instances of tests/data/beem/counts.csv (deadlock check, the
    whole state space), with SPIN's own reduction (those without channels) on
    the Promela export (`weft convert --to promela`, `spin -o2 -a`; pan
    -DSAFETY, with and without -DNOREDUCE), states stored side by side;
  * the lock schema lock(n, 2).

  * with `--suite MAX [MIN]`, instead of all that: every BEEM instance of
    tests/data/beem/suite.csv with at most MAX (and more than MIN)
    published states, checked for
    deadlocks (`--property deadlock`, one job) with and without `--por`;
    prints one line per instance, the geometric mean over the deadlock-free
    runs, per family and over all.

Usage: scripts/por-table.py              (needs cargo; spin and gcc for SPIN)
       scripts/por-table.py --suite 1000000
       scripts/por-table.py --suite 5000000 1000000
Prints markdown tables and the geometric means.
"""
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WEFT = os.path.join(ROOT, "target", "release", "weft")

# ESST (seed 001), Table 1 (PS-POR seconds) and Table 2 (PS-POR abstract
# states), on the paper's machine.
ESST = {
    (3, False): (0.20, 180), (4, False): (0.29, 266), (5, False): (0.40, 395),
    (6, False): (0.49, 518), (7, False): (0.80, 963), (8, False): (0.89, 1088),
    (9, False): (1.70, 2628), (10, False): (2.10, 3292),
    (3, True): (0.10, 89), (4, True): (0.10, 125), (5, True): (0.10, 181),
    (6, True): (0.10, 251), (7, True): (0.20, 457), (8, True): (0.29, 533),
    (9, True): (0.60, 1281), (10, True): (0.79, 1632),
}


def weft(path, *extra, jobs=2):
    out = subprocess.run([WEFT, "check", path, "--format", "json", "--jobs", str(jobs), *extra],
                         capture_output=True, text=True).stdout
    lines = [json.loads(x) for x in out.splitlines() if x.strip()]
    s = lines[-1]["summary"]
    verdicts = {x["property"]: x["verdict"] for x in lines[:-1]}
    return verdicts, s["stats"]["states"], s["stats"]["time_s"]


def spin(pml_dir, reduce):
    flags = ["-O2", "-DSAFETY", "-DMEMLIM=16000"] + ([] if reduce else ["-DNOREDUCE"])
    subprocess.run(["gcc", *flags, "-o", "pan", "pan.c"], cwd=pml_dir, check=True,
                   capture_output=True)
    out = subprocess.run(["./pan", "-m1000000", "-w24"], cwd=pml_dir, capture_output=True,
                         text=True).stdout
    m = re.search(r"([0-9.e+]+) states, stored", out)
    return int(float(m.group(1))) if m else None


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def token_ring(work):
    print("| token ring | verdict | states | states, --por | time | time, --por | ESST PS-POR time | ESST PS-POR abstract states |")
    print("|---|---|---|---|---|---|---|---|")
    for bug in (False, True):
        for n in range(3, 11):
            path = os.path.join(work, f"tr{n}{bug}.json")
            with open(path, "w") as f:
                subprocess.run([WEFT, "gen", "token-ring", "--threads", str(n)] + (["--bug"] if bug else []),
                               stdout=f, check=True)
            v, full, t = weft(path, "--property", "token")
            vp, red, tp = weft(path, "--property", "token", "--por")
            assert v == vp, (n, bug, v, vp)
            et, es = ESST[(n, bug)]
            name = f"token-ring{'-bug' if bug else ''}({n})"
            print(f"| {name} | {v['token']} | {full} | {red} | {t:.3f} s | {tp:.3f} s | {et} s | {es} |")


def beem(work, with_spin):
    rows = list(csv.DictReader(open(os.path.join(ROOT, "tests/data/beem/counts.csv"))))
    print()
    print("| BEEM instance | deadlock | states | states, --por | ratio | SPIN stored, -DNOREDUCE | SPIN stored, reduced | SPIN ratio |")
    print("|---|---|---|---|---|---|---|---|")
    ours, safe, theirs = [], [], []
    for r in rows:
        path = os.path.join(ROOT, "tests/data/beem", r["file"])
        v, full, _ = weft(path)
        vp, red, _ = weft(path, "--por")
        assert v == vp, (r["file"], v, vp)
        ratio = full / red
        ours.append(ratio)
        if v.get("deadlock") == "safe":
            safe.append(ratio)
        cells = ["", "", ""]
        if with_spin:
            d = os.path.join(work, os.path.basename(r["file"]))
            os.makedirs(d, exist_ok=True)
            pml = subprocess.run([WEFT, "convert", path, "--to", "promela"], capture_output=True,
                                 text=True)
            if pml.returncode == 0:
                open(os.path.join(d, "m.pml"), "w").write(pml.stdout)
                # -o2: keep variables written but never read (SPIN would
                # hide them, merging states: not a partial-order reduction).
                subprocess.run(["spin", "-o2", "-a", "m.pml"], cwd=d, capture_output=True, check=True)
                a, b = spin(d, False), spin(d, True)
                if a and b:
                    theirs.append(a / b)
                    cells = [str(a), str(b), f"{a / b:.2f}×"]
            else:
                cells = ["not exported (rendezvous)", "", ""]
        print(f"| {r['file'][4:]} | {v.get('deadlock')} | {full} | {red} | {ratio:.2f}× | " + " | ".join(cells) + " |")
    print()
    print(f"Geometric mean, states without / with reduction: weft --por {geomean(safe):.2f}× over the "
          f"{len(safe)} deadlock-free runs, {geomean(ours):.2f}× over all {len(ours)}"
          + (f"; SPIN {geomean(theirs):.2f}× over the {len(theirs)} it can read" if theirs else ""))


def suite(max_states, min_states):
    rows = [r for r in csv.DictReader(open(os.path.join(ROOT, "tests/data/beem/suite.csv")))
            if r["states"] and min_states < int(r["states"]) <= max_states]
    rows.sort(key=lambda r: int(r["states"]))
    print("| BEEM instance | deadlock | states | states, --por | ratio | time | time, --por |")
    print("|---|---|---|---|---|---|---|")
    families = {}
    for r in rows:
        path = os.path.join(ROOT, "tests/data/beem", r["file"])
        args = ("--property", "deadlock", "--timeout", "300")
        v, full, t = weft(path, *args, jobs=1)
        vp, red, tp = weft(path, *args, "--por", jobs=1)
        d = v.get("deadlock")
        # A run stopped by the time budget answers `unknown`: reported, not
        # counted. Otherwise the verdicts must agree.
        if "unknown" in (d, vp.get("deadlock")):
            print(f"| {r['file'][4:]} | {d} / {vp.get('deadlock')} (--por) | {full} | {red} | — | {t:.2f} s | {tp:.2f} s |",
                  flush=True)
            continue
        assert v == vp, (r["file"], v, vp)
        print(f"| {r['file'][4:]} | {d} | {full} | {red} | {full / red:.2f}× | {t:.2f} s | {tp:.2f} s |",
              flush=True)
        if d == "safe":
            families.setdefault(r["file"][4:].split(".")[0], []).append(full / red)
    print()
    print("| family | deadlock-free runs | geometric mean |")
    print("|---|---|---|")
    for fam, ratios in sorted(families.items()):
        print(f"| {fam} | {len(ratios)} | {geomean(ratios):.2f}× |")
    every = [x for ratios in families.values() for x in ratios]
    print()
    print(f"Geometric mean, states without / with --por: {geomean(every):.2f}× over the "
          f"{len(every)} deadlock-free runs ({len(families)} families); "
          f"{geomean([geomean(x) for x in families.values()]):.2f}× over the families' means")


def lock(work):
    print()
    print("| lock(n, 2) | states | states, --por | time | time, --por |")
    print("|---|---|---|---|---|")
    for n in (3, 4, 5, 6, 7):
        path = os.path.join(work, f"lock{n}.json")
        with open(path, "w") as f:
            subprocess.run([WEFT, "gen", "lock", "--threads", str(n), "--sections", "2"], stdout=f, check=True)
        v, full, t = weft(path)
        vp, red, tp = weft(path, "--por")
        assert v == vp
        print(f"| n = {n} | {full} | {red} | {t:.3f} s | {tp:.3f} s |")


def main():
    subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    with_spin = shutil.which("spin") and shutil.which("gcc")
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    if len(sys.argv) in (3, 4) and sys.argv[1] == "--suite":
        print(f"Machine: {cpu}, {os.cpu_count()} cores; weft {rev}, --jobs 1; times are weft's own search times.")
        print()
        return suite(int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) == 4 else 0)
    print(f"Machine: {cpu}, {os.cpu_count()} cores; weft {rev}, --jobs 2; times are weft's own search times.")
    print()
    with tempfile.TemporaryDirectory() as work:
        token_ring(work)
        beem(work, with_spin)
        lock(work)


if __name__ == "__main__":
    sys.exit(main())
