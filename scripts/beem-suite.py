#!/usr/bin/env python3
"""The whole BEEM suite through `weft check` (docs/beem.md, "The whole suite").

Every instance `<model>.<id>.dve` of a BEEM checkout (the public repository
plug-obp/beem-benchmark: `original-benchmark/<model>/generated_files/`) is
explored by `standard` with no property (its full state space, as BEEM's
published reachability runs do), and its state and edge counts are compared
with the published ones: `results.xml` (`<states>`, complete="yes" or not)
and `<model>.<id>.stat.xml` (`<edges>`, present for some instances only).
The `.propN.dve` files are the LTL variants (a Büchi automaton as an extra
process) and are not instances of their own.

Usage:
  scripts/beem-suite.py BEEM_CHECKOUT [--max-published N] [--min-published N] [--timeout S]
                        [--max-memory MIB] [--only REGEX] [--weft PATH]

Prints a Markdown table (one row per instance) and a summary: loaded,
refused, matching, differing, stopped by a budget, total time. An instance
whose published count is incomplete (BEEM's run did not finish) has nothing
to compare with: it runs for --incomplete-timeout seconds, to show that it
loads. Exits 1 when an instance is refused, a complete count differs or a
budget stops an instance that has one.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

INSTANCE = re.compile(r"^([A-Za-z_0-9-]+)\.(\d+)\.dve$")


def published(gen_dir, model):
    """{id: (states, complete, reach_time)} from results.xml."""
    path = os.path.join(gen_dir, "results.xml")
    out = {}
    if not os.path.exists(path):
        return out
    text = open(path, encoding="utf-8", errors="replace").read()
    # The DTD reference is relative and absent: drop it before parsing.
    text = re.sub(r"<!DOCTYPE[^>]*>", "", text)
    root = ET.fromstring(text)
    for inst in root.iter("instance"):
        if inst.get("name") != model:
            continue
        rt = inst.find("reach-time")
        st = inst.find("states")
        complete = rt is not None and rt.get("complete") == "yes"
        states = int(st.text) if st is not None and st.text and st.text.strip().isdigit() else None
        reach = rt.text.strip() if rt is not None and rt.text else None
        out[int(inst.get("id"))] = (states, complete, reach)
    return out


def published_edges(gen_dir, model, ident):
    path = os.path.join(gen_dir, f"{model}.{ident}.stat.xml")
    if not os.path.exists(path):
        return None
    m = re.search(r"<edges>\s*(\d+)\s*</edges>", open(path, errors="replace").read())
    return int(m.group(1)) if m else None


def run_weft(weft, path, timeout, max_memory):
    # DiVinE's semantics of a transition that fails at run time (its error
    # state), as in BEEM's published counts (docs/beem.md, "Overflow").
    cmd = [weft, "check", path, "--format", "json", "--property", "state-space",
           "--divine-errors", "--timeout", str(timeout), "--max-memory", str(max_memory)]
    start = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - start
    if p.returncode == 2:
        first = next((l for l in p.stderr.splitlines() if l.startswith("error")), p.stderr.strip()[:200])
        return {"refused": first, "wall": wall}
    lines = [json.loads(l) for l in p.stdout.splitlines() if l.strip().startswith("{")]
    res = next((l for l in lines if "verdict" in l and "stats" in l and "summary" not in l), None)
    if res is None:
        return {"refused": f"no result (exit {p.returncode}): {p.stderr.strip()[:200]}", "wall": wall}
    warnings = [l for l in p.stderr.splitlines() if l.startswith("warning")]
    return {"verdict": res["verdict"], "stats": res["stats"], "reason": res.get("reason", ""),
            "wall": wall, "warnings": warnings}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("beem")
    ap.add_argument("--max-published", type=int, default=None,
                    help="only instances with a complete published count of at most N")
    ap.add_argument("--min-published", type=int, default=None,
                    help="only instances with a complete published count above N")
    ap.add_argument("--incomplete-only", action="store_true",
                    help="only the instances whose published count is incomplete")
    ap.add_argument("--incomplete-timeout", type=int, default=30,
                    help="seconds for an instance whose published count is incomplete "
                         "(it shows that the instance loads; BEEM has no count to compare)")
    ap.add_argument("--timeout", type=int, default=3600)
    ap.add_argument("--max-memory", type=int, default=16384)
    ap.add_argument("--only", default=None)
    ap.add_argument("--weft", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "..", "target", "release", "weft"))
    a = ap.parse_args()
    root = a.beem
    if os.path.isdir(os.path.join(root, "original-benchmark")):
        root = os.path.join(root, "original-benchmark")
    rows, refused, differ, stopped, match, unpublished = [], 0, 0, 0, 0, 0
    t0 = time.time()
    print("| instance | published states | weft states | published edges | weft edges | result | weft time | states/s | peak RSS | BEEM reach-time (2007) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for model in sorted(os.listdir(root)):
        gen = os.path.join(root, model, "generated_files")
        if not os.path.isdir(gen):
            continue
        pub = published(gen, model)
        files = sorted((int(m.group(2)), f) for f in os.listdir(gen)
                       if (m := INSTANCE.match(f)) and m.group(1) == model)
        for ident, f in files:
            name = f"{model}.{ident}"
            if a.only and not re.search(a.only, name):
                continue
            states, complete, reach = pub.get(ident, (None, False, None))
            if a.max_published is not None and (states is None or not complete
                                                or states > a.max_published):
                continue
            if a.incomplete_only and complete:
                continue
            if a.min_published is not None and (states is None or not complete
                                                or states <= a.min_published):
                continue
            edges = published_edges(gen, model, ident)
            budget = a.timeout if complete else min(a.timeout, a.incomplete_timeout)
            r = run_weft(a.weft, os.path.join(gen, f), budget, a.max_memory)
            if "refused" in r:
                refused += 1
                result = f"**refused**: {r['refused']}"
                cells = ["—", "—", "—", "—", "—"]
            else:
                s = r["stats"]
                ws, we = s.get("states"), s.get("transitions")
                if states is None or not complete:
                    unpublished += 1
                    result = "loads; no complete published count" + (
                        f" (stopped after {budget} s, as asked)" if r["verdict"] == "unknown" else "")
                elif r["verdict"] == "unknown":
                    stopped += 1
                    result = f"**stopped**: {r['reason']}"
                elif ws == states and (edges is None or we == edges):
                    match += 1
                    result = "equal" if edges is not None else "equal (states; no edges published)"
                else:
                    differ += 1
                    result = "**differs**"
                t = s.get("time_s") or r["wall"]
                rate = f"{ws / t / 1e6:.2f} M" if ws and t else ""
                rss = s.get("peak_memory_bytes")
                cells = [str(ws), str(edges) if edges is not None else "—", str(we),
                         f"{r['wall']:.2f} s", rate]
                cells.append(f"{rss / 2**20:.0f} MiB" if rss else "")
                cells = [cells[0], cells[1], cells[2], result, cells[3], cells[4], cells[5]]
                print(f"| {name} | {states if states is not None else '—'}{'' if complete else ' (incomplete)'} | "
                      + " | ".join(cells) + f" | {reach or '—'} s |", flush=True)
                continue
            print(f"| {name} | {states if states is not None else '—'} | — | {edges if edges is not None else '—'} | — | {result} | {r['wall']:.2f} s | | | {reach or '—'} s |", flush=True)
    total = time.time() - t0
    print()
    print(f"Instances: {match + differ + refused + stopped + unpublished}; equal: {match}; "
          f"differ: {differ}; refused: {refused}; stopped by a budget: {stopped}; "
          f"no complete published count: {unpublished}; total time {total:.0f} s.")
    sys.exit(1 if refused or differ or stopped else 0)


if __name__ == "__main__":
    main()
