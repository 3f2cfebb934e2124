#!/usr/bin/env python3
"""PyTorch's side of the kernel benchmark (bench/kernels.sh).

usage: kernels_torch.py CASES.txt

For each case line of gen_kernels.py (`label|stem|inputs|reps|shapes|expr`)
runs the op `reps` times in a row as the gp program does (chained when the
gp program chains), with CUDA events around, median of 200 runs after
warm-up: once eagerly and once replaying a torch.cuda graph of the same ops
(PyTorch's kernel time without launch overhead). Prints
`label|eager us per op|graph us per op`.
"""
import statistics
import sys

import torch


def time_us(fn, runs=200):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    samples = []
    for _ in range(runs):
        start.record()
        fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) * 1000.0)
    return statistics.median(samples)


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    for line in open(sys.argv[1]):
        label, stem, inputs, reps, shapes, expr = line.rstrip("\n").split("|", 5)
        reps = int(reps)
        expr = expr.split("|")[0]
        dtype = torch.bfloat16 if "xbf16=" in inputs else torch.float32
        xs = [torch.randn(*[int(d) for d in s.split("x")], device="cuda",
                          dtype=dtype)
              for s in shapes.split(";")]
        # As gen_kernels.py: only the elementwise chain feeds each result
        # to the next repetition.
        chained = "relu" in expr

        def step():
            values = list(xs)
            out = None
            for _ in range(reps):
                env = {f"x{k}": v for k, v in enumerate(values)}
                env["torch"] = torch
                out = eval(expr, env)
                if chained:
                    values[0] = out
            return out

        for _ in range(5):
            step()
        torch.cuda.synchronize()
        eager = time_us(step) / reps
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(3):
                step()
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            step()
        graph.replay()
        torch.cuda.synchronize()
        replayed = time_us(graph.replay) / reps
        print(f"{label}|{eager:.2f}|{replayed:.2f}", flush=True)


if __name__ == "__main__":
    main()
