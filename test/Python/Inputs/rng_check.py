"""The dropout program (programs.py) run through graphpart.load: its
numbers are GraphPart's own philox draws, so it is checked by what dropout
must satisfy rather than against PyTorch's numbers:
  - every kept element is x / (1 - p), every dropped one 0;
  - the backward drops exactly what the forward dropped, scaling the rest;
  - about 1 - p of the elements are kept;
  - every call draws afresh (replays of the captured graph included);
  - rand is uniform on [0, 1) and randn_like standard normal.

    rng_check.py RUNTIME_LIBRARY ARTIFACT [host|cuda]
"""
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "python"))
import graphpart  # noqa: E402

runtime, artifact = sys.argv[1:3]
backend = sys.argv[3] if len(sys.argv) > 3 else "host"
model = graphpart.load(artifact, backend=backend, runtime_library=runtime)
p = 0.25
failures = 0


def check(label, ok):
    global failures
    failures += not ok
    print("%s %s" % ("ok" if ok else "FAILED", label))


torch.manual_seed(0)
x, g = torch.randn(64, 64), torch.rand(64, 64) + 0.5
if backend == "cuda":
    x, g = x.cuda(), g.cuda()
masks = []
for call in range(4):
    y, gx, uniform, normal = model(x, g)
    kept = y != 0
    masks.append(kept)
    check("call %d: kept elements are x / (1 - p)" % call,
          torch.allclose(y[kept], x[kept] / (1 - p), rtol=1e-6))
    check("call %d: the backward keeps what the forward kept" % call,
          torch.equal(gx != 0, kept) and
          torch.allclose(gx[kept], g[kept] / (1 - p), rtol=1e-6))
    fraction = kept.float().mean().item()
    check("call %d: kept fraction %.3f near %.2f" % (call, fraction, 1 - p),
          abs(fraction - (1 - p)) < 0.03)
    check("call %d: rand in [0, 1), mean near 0.5" % call,
          uniform.min() >= 0 and uniform.max() < 1 and
          abs(uniform.mean().item() - 0.5) < 0.02)
    check("call %d: randn_like mean near 0, std near 1" % call,
          abs(normal.mean().item()) < 0.05 and
          abs(normal.std().item() - 1) < 0.05)
check("every call draws a different mask",
      all(not torch.equal(a, b) for i, a in enumerate(masks)
          for b in masks[i + 1:]))
print("rng: %d failure(s)" % failures)
sys.exit(1 if failures else 0)
