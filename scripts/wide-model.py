#!/usr/bin/env python3
"""A weft/1 model whose every state has a global store of its own, and a
long one: five threads, each incrementing its own cell of a CELLS-cell
global array from 0 to 9 (100,000 states whatever CELLS is). It measures
what `standard` pays per byte of global store where the successor memo
never hits (docs/performance.md, "Wide stores").

    python3 scripts/wide-model.py 1000 > wide.json
    weft check wide.json
"""
import json
import sys


def model(cells: int) -> dict:
    threads = [
        {
            "name": f"P{i}",
            "start": "l",
            "transitions": [
                {"from": "l", "to": "l", "when": f"a[{i}] < 9", "do": f"a[{i}] := a[{i}] + 1"}
            ],
        }
        for i in range(5)
    ]
    return {
        "format": "weft/1",
        "name": "wide",
        "globals": {"a": {"type": "array", "len": cells, "of": {"type": "int", "min": 0, "max": 9}}},
        "threads": threads,
        "properties": [{"name": "p", "error": "a[0] == 10"}],
    }


if __name__ == "__main__":
    if len(sys.argv) != 2 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 5:
        sys.exit("usage: wide-model.py CELLS   (CELLS >= 5)")
    print(json.dumps(model(int(sys.argv[1]))))
