"""PyTorch's scaled_dot_product_attention at bench/attention_kernel.cu's
shapes, timed the same way (a CUDA graph of 20 calls, replayed; median of
rounds), as the baseline of bench/attention_kernel.sh. Prints "NAME
us_per_call" per shape; TF32 off, as in the model benchmarks."""
import sys

import torch
import torch.nn.functional as F

# name, batch, heads, kv heads, queries, keys, width, causal, dtype: the
# same list as kShapes in attention_kernel.cu.
SHAPES = [
    ("gpt2_64_f32", 1, 12, 12, 64, 64, 64, True, torch.float32),
    ("gpt2_64_bf16", 1, 12, 12, 64, 64, 64, True, torch.bfloat16),
    ("gpt2_512_f32", 1, 12, 12, 512, 512, 64, True, torch.float32),
    ("gpt2_512_bf16", 1, 12, 12, 512, 512, 64, True, torch.bfloat16),
    ("bert_128_f32", 1, 12, 12, 128, 128, 64, False, torch.float32),
    ("llama_128_f32", 1, 16, 4, 128, 128, 64, True, torch.float32),
    ("llama_128_bf16", 1, 16, 4, 128, 128, 64, True, torch.bfloat16),
    ("large_4x16x2048_bf16", 4, 16, 16, 2048, 2048, 64, False, torch.bfloat16),
]


def time_shape(batch, heads, kv_heads, queries, keys, width, causal, dtype,
               rounds):
    gen = torch.Generator(device="cuda").manual_seed(7)
    q = torch.rand(batch, heads, queries, width, device="cuda",
                   generator=gen).to(dtype)
    k = torch.rand(batch, kv_heads, keys, width, device="cuda",
                   generator=gen).to(dtype)
    v = torch.rand_like(k)
    gqa = kv_heads != heads

    def step():
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                              enable_gqa=gqa)

    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        for _ in range(3):
            step()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(20):
            step()
    for _ in range(5):
        graph.replay()
    torch.cuda.synchronize()
    per_call = []
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    for _ in range(rounds):
        start.record()
        for _ in range(10):
            graph.replay()
        stop.record()
        stop.synchronize()
        per_call.append(1000.0 * start.elapsed_time(stop) / 200)
    per_call.sort()
    return per_call[len(per_call) // 2]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 21
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    for name, *shape in SHAPES:
        print(f"{name} {time_shape(*shape, rounds):.2f}", flush=True)


if __name__ == "__main__":
    main()
