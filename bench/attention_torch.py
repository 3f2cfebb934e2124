#!/usr/bin/env python3
"""PyTorch's side of the attention-block benchmark (bench/attention.sh):
examples/attention_block.mlir's computation on the same shapes, per step
(median of 500 steps after warm-up, wall clock around each step including
the .item() synchronisation, as gp-run measures its steps), eager and with
torch.compile(mode="reduce-overhead"). Prints `eager us` and `compiled us`.
"""
import statistics
import time

import torch


def block(x, wq, wk):
    q, k = x @ wq, x @ wk
    p = torch.softmax(q @ k.t(), dim=1)
    m = p.max().item()
    return (p @ x) * m


def per_step_us(fn, args, steps=500):
    for _ in range(20):
        fn(*args)
    torch.cuda.synchronize()
    samples = []
    for _ in range(steps):
        start = time.perf_counter()
        fn(*args)
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - start) * 1e6)
    return statistics.median(samples)


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    x = torch.randn(128, 64, device="cuda")
    wq, wk = torch.randn(64, 64, device="cuda"), torch.randn(64, 64, device="cuda")
    print(f"eager {per_step_us(block, (x, wq, wk)):.2f}")
    compiled = torch.compile(block, mode="reduce-overhead")
    print(f"compiled {per_step_us(compiled, (x, wq, wk)):.2f}")


if __name__ == "__main__":
    main()
