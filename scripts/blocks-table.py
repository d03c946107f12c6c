#!/usr/bin/env python3
"""Lipton reduction (`--blocks`), measured (docs/performance.md, "Lipton
reduction (issue 16)"): for the families of Popeea, Rybalchenko and
Wilhelm's Table I (`weft gen p1|p2|stack|philosophers`), the states stored
and time of `standard` with and without `--blocks`, and the verdict, states
and time of `thread-modular` with and without `--blocks`, beside the
paper's Comp (compositional, no reduction) and RedComp (with reduction)
times.

Usage: scripts/blocks-table.py            (needs cargo)
Prints a markdown table. Each run is `weft check` once (the median of
three for the times).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WEFT = os.path.join(ROOT, "target", "release", "weft")

# Table I of the paper (seconds; None: time-out after 5400 s).
PAPER = {
    "p1-1": (7, 2), "p1-5": (101, 32), "p1-10": (840, 64), "p1-50": (None, 2400),
    "p2-5": (270, 140), "p2-10": (1020, 220), "p2-50": (None, 3778),
    "stack-safe-5": (96, 17), "stack-safe-10": (224, 75),
    "stack-unsafe-5": (9, 2), "stack-unsafe-10": (9, 3),
}

CASES = [
    ("p1-1", ["p1", "--stmts", "1"]), ("p1-5", ["p1", "--stmts", "5"]),
    ("p1-10", ["p1", "--stmts", "10"]), ("p1-50", ["p1", "--stmts", "50"]),
    ("p1-200", ["p1", "--stmts", "200"]),
    ("p2-5", ["p2", "--stmts", "5"]), ("p2-10", ["p2", "--stmts", "10"]),
    ("p2-50", ["p2", "--stmts", "50"]),
    ("stack-safe-5", ["stack", "--size", "5"]), ("stack-safe-10", ["stack", "--size", "10"]),
    ("stack-unsafe-5", ["stack", "--size", "5", "--bug"]),
    ("stack-unsafe-10", ["stack", "--size", "10", "--bug"]),
    ("philosophers-6", ["philosophers", "--threads", "6"]),
    ("philosophers-10", ["philosophers", "--threads", "10"]),
]


def run(path, args):
    times, summary = [], None
    for _ in range(3):
        out = subprocess.run([WEFT, "check", path, "--format", "json", "--timeout", "60"] + args,
                             capture_output=True, text=True)
        last = json.loads(out.stdout.strip().splitlines()[-1])
        summary = last
        times.append(last["summary"]["stats"].get("time_s", float("nan")))
    stats = summary["summary"]["stats"]
    return summary["verdict"], stats.get("states"), statistics.median(times)


def fmt_s(t):
    return "T/O" if t is None else f"{t} s"


def main():
    subprocess.run(["cargo", "build", "--release", "--locked", "-q"], cwd=ROOT, check=True)
    print("| model | standard states | --blocks states | ratio | standard time | --blocks time "
          "| thread-modular | thread-modular --blocks | paper Comp | paper RedComp |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, gen in CASES:
            path = os.path.join(tmp, name + ".json")
            with open(path, "w") as f:
                subprocess.run([WEFT, "gen"] + gen, stdout=f, check=True)
            v0, s0, t0 = run(path, [])
            v1, s1, t1 = run(path, ["--blocks"])
            assert v0 == v1, (name, v0, v1)
            tv0, ts0, tt0 = run(path, ["--mode", "thread-modular"])
            tv1, ts1, tt1 = run(path, ["--mode", "thread-modular", "--blocks"])
            comp, red = PAPER.get(name, ("", ""))
            comp = fmt_s(comp) if name in PAPER else "—"
            red = fmt_s(red) if name in PAPER else "—"
            print(f"| {name} | {s0} | {s1} | {s0 / s1:.1f}× | {t0:.4f} s | {t1:.4f} s "
                  f"| {tv0}, {ts0} states, {tt0:.4f} s | {tv1}, {ts1} states, {tt1:.4f} s "
                  f"| {comp} | {red} |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
