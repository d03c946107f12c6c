#!/usr/bin/env python3
"""End-to-end mutation campaign: the whole `weft check` (loader AND engines)
on mutated copies of the shipped models and BEEM files (issue 19).

scripts/fuzz.sh fuzzes the three parsers in-process with libFuzzer; this
complements it by running the binary in every mode on inputs that still
load, which is where an engine's arithmetic or allocation can fail. Each
input is a seed with 1-3 mutations (a number replaced by a boundary value,
an operator swapped, a line duplicated or deleted, an identifier swapped, a
byte changed), checked with `--timeout 5 --max-memory 1500` in a random
mode. A run is bad when it exits with anything but 0-3 (4 is an internal
error, a signal is an abort), prints a panic or a stack overflow, or hangs
past 30 s. Bad inputs are kept in OUT/.

usage: scripts/fuzz-cli.py SEED SECONDS [OUT]   (from the repository root;
needs target/release/weft: cargo build --release)
"""
import random, subprocess, sys, os, re, glob, time
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
W = os.path.join(ROOT, "target/release/weft")
OUT = sys.argv[3] if len(sys.argv) > 3 else "fuzz-cli-found"
seeds = glob.glob(f"{ROOT}/models/*.json") + glob.glob(f"{ROOT}/tests/data/**/*.json", recursive=True) + glob.glob(f"{ROOT}/tests/data/beem/dve/*.dve")
seeds = [s for s in seeds if os.path.getsize(s) < 200000]
NUMS = ["0", "-1", "1", "255", "256", "65535", "65536", "2147483647", "2147483648", "-2147483649", "9223372036854775807", "-9223372036854775808", "99999999999999999999", "1e9", "100000", "1000000"]
def mutate(text):
    k = random.randrange(6)
    if k == 0:  # replace a number
        ms = list(re.finditer(r"-?\d+", text))
        if ms:
            m = random.choice(ms); return text[:m.start()] + random.choice(NUMS) + text[m.end():]
    if k == 1:  # swap operator
        ops = ["+", "-", "*", "/", "%", "<<", ">>", "==", "!=", "&&", "||", "!", "&", "|", "^"]
        ms = list(re.finditer(r"[-+*/%<>=!&|^]+", text))
        if ms:
            m = random.choice(ms); return text[:m.start()] + random.choice(ops) + text[m.end():]
    if k == 2:  # duplicate a line
        lines = text.split("\n"); i = random.randrange(len(lines)); lines.insert(i, lines[i]); return "\n".join(lines)
    if k == 3:  # delete a line
        lines = text.split("\n")
        if len(lines) > 2: del lines[random.randrange(len(lines))]
        return "\n".join(lines)
    if k == 4:  # swap identifiers
        ids = list(set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text)))
        ms = list(re.finditer(r"[A-Za-z_][A-Za-z_0-9]*", text))
        if ms and ids:
            m = random.choice(ms); return text[:m.start()] + random.choice(ids) + text[m.end():]
    # byte flip
    b = bytearray(text.encode()); 
    if b: b[random.randrange(len(b))] = random.randrange(32, 127)
    return b.decode(errors="replace")
n = 0; bad = 0
end = time.time() + float(sys.argv[2] if len(sys.argv) > 2 else 300)
os.makedirs(OUT, exist_ok=True)
import tempfile
work = tempfile.mkdtemp()
while time.time() < end:
    src = random.choice(seeds); text = open(src, errors="replace").read()
    for _ in range(random.randint(1, 3)): text = mutate(text)
    ext = os.path.splitext(src)[1]
    path = f"{work}/in{ext}"; open(path, "w").write(text)
    mode = random.choice(["standard", "thread-modular", "cartesian-exc", "refine", "standard --symmetry", "standard --jobs 1"])
    args = [W, "check", path, "--timeout", "5", "--max-memory", "1500", "--mode"] + mode.split()
    if ext == ".dve" and random.random() < 0.5:
        args += ["--error", random.choice(["count(*: @CS) >= 2", "deadlock", "x == 1", "true"])]
    try:
        r = subprocess.run(args, capture_output=True, timeout=30, text=True, errors="replace")
        code = r.returncode; err = r.stderr
    except subprocess.TimeoutExpired:
        code = "hang"; err = ""
    n += 1
    if code not in (0, 1, 2, 3) or "panicked" in err or "internal error" in err or "overflowed its stack" in err:
        bad += 1
        keep = f"{OUT}/{sys.argv[1]}-{n}{ext}"
        open(keep, "w").write(text)
        print("BAD", code, mode, keep, err.strip()[:300].replace("\n", " | "), flush=True)
print("tried", n, "bad", bad)
