#!/usr/bin/env python3
"""Feeds gp-opt damaged versions of valid inputs and checks that every one
ends in a clean exit: status 0 (still valid) or 1 (a diagnostic), never a
signal, an assertion or a hang.

usage: mangle.py GP_OPT [--passes] FILE...

With --passes, the damaged inputs also go through the whole pipeline and
the GPU conversion (those that still parse must not crash them either).

For each file: every prefix at a fixed stride (truncated text), and, with a
fixed seed, copies with one token deleted and with two tokens swapped. All
variants of a file go through one gp-opt process (--split-input-file) to keep
the test fast; if that process crashes, each variant is rerun on its own to
name the culprit.
"""
import random
import re
import subprocess
import sys

TIMEOUT_S = 20
CRASH_MARKERS = ("Stack dump", "Assertion", "LLVM ERROR", "UNREACHABLE")


SPLIT = "\n// -----\n"


PASSES = []


def run(gp_opt, text, split=False):
    args = [gp_opt, "-", "-o", "/dev/null"] + (["--split-input-file"] if split else []) + PASSES
    proc = subprocess.run(args, input=text,
                          capture_output=True, text=True, timeout=TIMEOUT_S)
    return proc.returncode, proc.stderr


def variants(text, rng):
    stride = max(1, len(text) // 120)
    for cut in range(0, len(text), stride):
        yield f"prefix of {cut} bytes", text[:cut]
    tokens = [m.span() for m in re.finditer(r"[%#@^]?[\w.:<>\[\]-]+|\S", text)]
    for _ in range(80):
        start, end = tokens[rng.randrange(len(tokens))]
        yield f"deleted bytes {start}-{end}", text[:start] + text[end:]
    for _ in range(40):
        (a0, a1), (b0, b1) = sorted(rng.sample(tokens, 2))
        yield (f"swapped bytes {a0}-{a1} and {b0}-{b1}",
               text[:a0] + text[b0:b1] + text[a1:b0] + text[a0:a1] + text[b1:])


def is_clean(code, err):
    return code in (0, 1) and not any(m in err for m in CRASH_MARKERS)


def main():
    gp_opt, files = sys.argv[1], sys.argv[2:]
    if files and files[0] == "--passes":
        files = files[1:]
        PASSES.extend(["--gp-pipeline=debug=true", "--convert-gp-to-gpu"])
    rng = random.Random(20261202)
    runs = diagnostics = 0
    for path in files:
        text = open(path).read()
        damaged = list(variants(text, rng))
        runs += len(damaged)
        try:
            code, err = run(gp_opt, SPLIT.join(d for _, d in damaged), split=True)
        except subprocess.TimeoutExpired:
            code, err = -1, "hang"
        if not is_clean(code, err):
            for what, variant in damaged:
                try:
                    code, err = run(gp_opt, variant)
                except subprocess.TimeoutExpired:
                    sys.exit(f"FAIL: {path}: {what}: gp-opt hung")
                if not is_clean(code, err):
                    sys.exit(f"FAIL: {path}: {what}: exit {code}\n{err}")
            sys.exit(f"FAIL: {path}: the batch crashed but no variant alone does")
        for line in err.splitlines():
            if " error: " in line or line.startswith("error:"):
                if not re.match(r"^<stdin>:\d+:\d+: error:", line):
                    sys.exit(f"FAIL: {path}: error without a location: {line}")
                diagnostics += 1
    print(f"{runs} damaged inputs, {diagnostics} located errors, no crashes")
    if diagnostics == 0:
        sys.exit("FAIL: no damaged input was diagnosed; the test is not testing")


if __name__ == "__main__":
    main()
