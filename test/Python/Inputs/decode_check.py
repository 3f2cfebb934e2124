"""A decoder with a static key/value cache (bench/decode_loop.py's model:
module buffers written in place at a position given as an input) through
graphpart.capture, gp-compile and graphpart.load bound to the live module,
on the host backend against an independent eager copy: every step's logits
and greedy token over the whole cache length, the module's own cache
buffers written by the artifact (no copy), a reset seen by the next call,
and the caches bound from the capture's files instead of a module.

    decode_check.py RUNTIME_LIBRARY GP_COMPILE WORK
"""
import copy
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..", "..", "..")
sys.path.insert(0, os.path.join(root, "python"))
sys.path.insert(0, os.path.join(root, "bench"))
import graphpart  # noqa: E402
from graphpart.compiler import build  # noqa: E402
import decode_loop  # noqa: E402

runtime, gp_compile, work = sys.argv[1:4]
failures = 0


def fail(message):
    global failures
    failures += 1
    print("FAILED " + message)


def greedy(runner, reference, tokens, pos, steps, label):
    """`steps` greedy steps of runner against reference, both fed the
    reference's tokens; the first mismatch is reported."""
    for step in range(steps):
        want = reference(tokens, pos)
        got = runner(tokens, pos)
        if got.shape != want.shape or not torch.allclose(
                got, want, rtol=1e-4, atol=1e-5):
            fail("%s: step %d: max abs difference %.3g" % (
                label, step, (got - want).abs().max().item()))
            return
        if not torch.equal(got.argmax(-1), want.argmax(-1)):
            fail("%s: step %d: a different greedy token" % (label, step))
            return
        tokens = want.argmax(-1)
        pos = pos + 1
    print("ok %s: %d steps" % (label, steps))


def same_caches(model, reference, label):
    for mine, theirs in zip(model.blocks, reference.blocks):
        for name in ("k_cache", "v_cache"):
            got, want = getattr(mine, name), getattr(theirs, name)
            if not torch.allclose(got, want, rtol=1e-4, atol=1e-5):
                fail("%s: %s differs from eager's" % (label, name))
                return
    print("ok %s: the module's caches hold eager's values" % label)


config = dict(decode_loop.SIZES["small"], batch=2, layers=2, length=12)
model = decode_loop.make_model(config, "cpu")
reference = copy.deepcopy(model)
tokens, pos = decode_loop.step_inputs(model)
with torch.no_grad():
    graphpart.capture(model, (tokens, pos), os.path.join(work, "graph"),
                      name="decoder")
model.reset()
built = build(os.path.join(work, "graph"), os.path.join(work, "built"),
              "host", gp_compile=gp_compile)
with open(os.path.join(work, "built", "decoder.mlir")) as f:
    text = f.read()
mutable = sorted(line.split('gp.parameter = "')[1].split('"')[0]
                 for line in text.replace(", %", "\n%").splitlines()
                 if "gp.mutable" in line)
print("mutable parameters: " + " ".join(mutable))
print("inputs written in place: %s" % built["mutated_inputs"])

artifact = graphpart.load(os.path.join(work, "built", built["artifact"]),
                          module=model, runtime_library=runtime)
entry = artifact.entries["decoder"]
print("results: %d" % len(entry.results))
cache = model.blocks[0].k_cache
with torch.no_grad():
    greedy(artifact, reference, tokens, pos, config["length"], "module")
    same_caches(model, reference, "module")
    if model.blocks[0].k_cache.data_ptr() != cache.data_ptr():
        fail("the cache tensor was replaced")
    # A new sequence: the module's caches zeroed in place, the artifact
    # sees it (the eager copy starts over too).
    model.reset()
    reference.reset()
    greedy(artifact, reference, tokens, pos, 5, "after reset")
    same_caches(model, reference, "after reset")

    # Bound from the capture's files: the caches are the artifact's own
    # (zeros, as captured), written in place call after call.
    files = graphpart.compiler.load_built(os.path.join(work, "built"),
                                          runtime_library=runtime)
    reference.reset()
    greedy(files, reference, tokens, pos, 4, "files")
artifact.close()
files.close()
print("failures: %d" % failures)
sys.exit(1 if failures else 0)
