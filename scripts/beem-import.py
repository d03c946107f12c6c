#!/usr/bin/env python3
"""Copies BEEM instances and their published figures into tests/data/beem.

  scripts/beem-import.py BEEM_CHECKOUT MAX_STATES

Every instance `<model>.<id>.dve` of a BEEM checkout (plug-obp/beem-benchmark)
whose published state count is complete and at most MAX_STATES is copied to
tests/data/beem/dve/, and tests/data/beem/suite.csv gets one row per instance
with BEEM's own figures: states (results.xml), and from `<model>.<id>.stat.xml`
where BEEM has one, edges, BFS levels and the states of out-degree 0. The
test `published_counts_of_the_whole_suite_up_to_a_million_states` compares
weft with this file, with DiVinE's error state (`--divine-errors`: anderson.1
overflows; docs/beem.md, "Overflow").
"""
import os
import re
import shutil
import sys

INSTANCE = re.compile(r"^([A-Za-z_0-9-]+)\.(\d+)\.dve$")
LEFT_OUT = set()


def main():
    root, limit = sys.argv[1], int(sys.argv[2])
    if os.path.isdir(os.path.join(root, "original-benchmark")):
        root = os.path.join(root, "original-benchmark")
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "beem")
    rows = []
    for model in sorted(os.listdir(root)):
        gen = os.path.join(root, model, "generated_files")
        res = os.path.join(gen, "results.xml")
        if not os.path.exists(res):
            continue
        text = open(res, errors="replace").read()
        published = {}
        for name, ident, body in re.findall(
                r'<instance name="([^"]+)" id="(\d+)">(.*?)</instance>', text, re.S):
            complete = re.search(r'complete="yes"', body) is not None
            states = re.search(r"<states>\s*(\d+)", body)
            if name == model and complete and states:
                published[int(ident)] = int(states.group(1))
        for f in sorted(os.listdir(gen)):
            m = INSTANCE.match(f)
            if not m or m.group(1) != model:
                continue
            ident = int(m.group(2))
            name = f"{model}.{ident}"
            states = published.get(ident)
            if states is None or states > limit or name in LEFT_OUT:
                continue
            edges = levels = deadlocks = ""
            stat = os.path.join(gen, f"{name}.stat.xml")
            if os.path.exists(stat):
                s = open(stat, errors="replace").read()
                if (e := re.search(r"<edges>\s*(\d+)", s)):
                    edges = e.group(1)
                if (l := re.search(r"<levels>\s*(\d+)", s)):
                    levels = l.group(1)
                if (d := re.search(r'<degree id="0"><in>\d+</in><out>(\d+)</out>', s)):
                    deadlocks = d.group(1)
                elif edges:
                    deadlocks = "0"  # no state of out-degree 0 listed
            shutil.copy(os.path.join(gen, f), os.path.join(here, "dve", f))
            rows.append(f"dve/{f},{states},{edges},{levels},{deadlocks}")
    with open(os.path.join(here, "suite.csv"), "w") as out:
        out.write("file,states,edges,bfs_levels,deadlocks\n")
        out.write("\n".join(rows) + "\n")
    print(f"{len(rows)} instances of at most {limit} states")


if __name__ == "__main__":
    main()
