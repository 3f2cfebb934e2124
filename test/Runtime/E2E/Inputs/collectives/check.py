"""Runs collectives.mlir's artifact as 4 ranks (gp-run --ranks 4) on x,
then again with new values of x, and checks every rank's results against
numpy: each rank r computes y_r = x * (r + 1) + r, and the collectives
combine the ranks' y_r. Prints one line per checked result and a summary.

    check.py GP_RUN ARTIFACT WORK
"""
import os
import subprocess
import sys

import numpy as np

RANKS = 4


def expected(x, rank):
    ys = [x * (r + 1) + r for r in range(RANKS)]
    total = sum(ys)
    ints = [np.trunc(r - 7 * x).astype(np.int32) for r in range(RANKS)]
    return [total, np.maximum.reduce(ys), np.concatenate(ys),
            total[rank:rank + 1], ys[2], np.minimum.reduce(ints),
            np.array(rank), np.array(RANKS)]


def main():
    gp_run, artifact, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    failures = 0
    for trial, x in enumerate([
            np.arange(24, dtype=np.float32).reshape(4, 6) / 8 - 1,
            np.random.default_rng(7).standard_normal((4, 6)).astype(
                np.float32) * 3]):
        x_path = os.path.join(work, "x%d.npy" % trial)
        np.save(x_path, x)
        out = os.path.join(work, "out%d.npy" % trial)
        run = subprocess.run(
            [gp_run, artifact, "--input", "@" + x_path, "--ranks",
             str(RANKS), "--iterations", "3", "--output", out],
            capture_output=True, text=True)
        if run.returncode != 0:
            print("FAILED trial %d: gp-run: %s" % (trial, run.stderr))
            failures += 1
            continue
        for rank in range(RANKS):
            for index, want in enumerate(expected(x, rank)):
                got = np.load(os.path.join(
                    work, "out%d.rank%d.%d.npy" % (trial, rank, index)))
                if got.shape != want.shape or not np.allclose(
                        got, want, rtol=1e-6, atol=1e-5):
                    print("FAILED trial %d rank %d result %d: got %s, "
                          "expected %s" % (trial, rank, index, got, want))
                    failures += 1
        print("trial %d: %d ranks checked" % (trial, RANKS))
    print("collectives: %d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
