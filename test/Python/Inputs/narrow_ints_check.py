"""Integer tensors narrower than int64 (int32 token ids and an int32
buffer bound as a parameter, int16 and int8 arithmetic) through
graphpart.compile for the host, against PyTorch eager,
bit for bit: inputs and outputs keep their dtype, and arithmetic wraps
around at the type's width as PyTorch's does (the converter computes in
int64 and wraps after each op). An in-place write to such an input is
refused with a clear error, and uint8 is refused naming the types taken.

    narrow_ints_check.py RUNTIME GP_COMPILE WORK
"""
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "python"))
import graphpart  # noqa: E402

runtime, gp_compile, work = sys.argv[1:4]
torch.manual_seed(0)


class Embed(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Embedding(10, 4)
        # An int32 buffer: a parameter of the program, bound at load.
        self.register_buffer("shift",
                             torch.tensor([3, -2, 1], dtype=torch.int32))

    def forward(self, ids):
        return self.table(ids), ids + self.shift


class Arithmetic(nn.Module):
    def forward(self, a, b):
        return (a * b + 7, (a + b).to(torch.int32), a.to(torch.int16) * 300,
                a.long() * 3, a.float() / 2)


class Mixed(nn.Module):
    def forward(self, a, keep):
        return (a, (a > 0) & keep, torch.where(keep, a, torch.zeros_like(a)),
                a.sum(), a.cumsum(0), a.max(0).values, a // 7, a % 5)


class Normalize(nn.Module):
    def forward(self, image):
        return image.float() / 255.0 - 0.5


class Increment(nn.Module):
    def forward(self, a):
        a.add_(1)
        return a * 2


extremes = torch.tensor([2**31 - 1, -2**31, 123456789, -5, 0, 46341],
                        dtype=torch.int32)
cases = [
    ("int32_ids", Embed(), [torch.randint(0, 10, (2, 3), dtype=torch.int32)]),
    ("int32_wraps", Arithmetic(),
     [extremes, torch.tensor([2, 2, 3, -7, 9, 46341], dtype=torch.int32)]),
    ("int8_wraps", Arithmetic(),
     [torch.tensor([100, -128, 127, 5], dtype=torch.int8),
      torch.tensor([2, 3, -1, 5], dtype=torch.int8)]),
    ("int16_mixed", Mixed(),
     [torch.tensor([32767, -32768, 7, -9, 0, 300], dtype=torch.int16),
      torch.tensor([True, False, True, True, False, True])]),
]


def flat(values):
    return list(values) if isinstance(values, tuple) else [values]


failures = 0
for name, model, inputs in cases:
    with torch.no_grad():
        want = flat(model(*inputs))
        compiled = graphpart.compile(model, inputs, target="host",
                                     work_dir=os.path.join(work, name),
                                     gp_compile=gp_compile,
                                     runtime_library=runtime)
        got = flat(compiled(*inputs))
    same = len(want) == len(got) and all(
        w.dtype == g.dtype and (torch.allclose(w, g) if w.is_floating_point()
                                else torch.equal(w, g))
        for w, g in zip(want, got))
    failures += not same
    print("%s %s" % (name, "ok" if same else "FAILED"))
    if not same:
        for w, g in zip(want, got):
            print("  want %s %s, got %s %s" % (w.dtype, w.tolist(), g.dtype,
                                               g.tolist()))

for name, model, inputs in [
        ("int32_in_place", Increment(), [extremes.clone()]),
        ("uint8", Normalize(),
         [torch.randint(0, 255, (2, 3), dtype=torch.uint8)])]:
    try:
        graphpart.compile(model, inputs, target="host",
                          work_dir=os.path.join(work, name),
                          gp_compile=gp_compile, runtime_library=runtime)
        print("%s FAILED: compiled" % name)
        failures += 1
    except graphpart.GraphError as error:
        print("%s refused: %s" % (name, str(error).splitlines()[0]))
print("narrow integers: %d failure(s)" % failures)
sys.exit(1 if failures else 0)
