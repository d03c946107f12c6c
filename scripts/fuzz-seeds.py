#!/usr/bin/env python3
"""Seeds for the fuzz corpora (docs/fuzzing.md): the shipped models, the test
data, and every expression found in them. Writes fuzz/seeds/<target>/; run by
scripts/fuzz.sh when fuzz/corpus/<target> is empty or missing."""
import glob, hashlib, json, os, sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
out = os.path.join(root, "fuzz", "seeds")

def put(target, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)

if os.path.isdir(out):
    import shutil
    shutil.rmtree(out)

def keep(p):
    # Open findings (tests/data/fuzz/open/) would only be found again.
    return os.sep + os.path.join("fuzz", "open") + os.sep not in p

jsons = sorted(glob.glob(os.path.join(root, "models", "*.json"))
               + glob.glob(os.path.join(root, "tests", "data", "**", "*.json"), recursive=True))
dves = sorted(glob.glob(os.path.join(root, "tests", "data", "**", "*.dve"), recursive=True))
jsons = [p for p in jsons if keep(p)]
dves = [p for p in dves if keep(p)]

# Slots of fuzz/entries.rs's EXPR_SLOTS: property, invariant, when, do, len, exception.
SLOT = {"error": 0, "invariant": 1, "when": 2, "do": 3, "len": 4, "one": 5, "others": 5}
exprs = set()

def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if k in SLOT and isinstance(x, str):
                exprs.add((SLOT[k], x))
            walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)

for p in jsons:
    data = open(p, "rb").read()
    put("json_model", data)
    try:
        walk(json.loads(data))
    except (ValueError, RecursionError):
        pass
for slot, e in sorted(exprs):
    put("expr", bytes([slot]) + e.encode())
for p in dves:
    data = open(p, "rb").read()
    put("dve", data)
    # With an --error expression after a NUL byte.
    put("dve", data + b"\0" + b"count(*: true) >= 2")
print(f"seeds: {len(jsons)} JSON models, {len(exprs)} expressions, {len(dves)} DVE models -> {out}")
