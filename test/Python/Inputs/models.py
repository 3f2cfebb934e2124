"""Whole models captured with torch.export through graphpart.capture, each
saved as programs.py saves its programs (the graph, NAME.input.N.npy and
NAME.expected.N.npy from PyTorch eager), at small configurations so the
graphs and weights stay small while the ops are the real models' ops.

    models.py OUT_DIR [NAME ...]

gpt2: Hugging Face transformers' GPT2LMHeadModel (2 layers, 2 heads, width
64, vocabulary 256), logits of a batch of 2 sequences of 16 tokens.
resnet18: torchvision's ResNet-18 as it is (random weights, eval mode), on
one 64x64 image.
Needs PyTorch 2.1 or later (torch.export), transformers and torchvision:
the GPU machine has them.
"""
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "python"))
sys.path.insert(0, here)
import graphpart  # noqa: E402
from programs import _numpy  # noqa: E402


class Logits(torch.nn.Module):
    """A language model's logits alone (no cache, no loss)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids):
        return self.model(input_ids=ids, use_cache=False).logits


def gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(11)
    config = GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=256,
                        n_positions=64, attn_pdrop=0.0, embd_pdrop=0.0,
                        resid_pdrop=0.0)
    model = GPT2LMHeadModel(config).eval()
    return Logits(model), [torch.randint(0, 256, (2, 16))]


def resnet18():
    import torchvision
    torch.manual_seed(12)
    model = torchvision.models.resnet18(weights=None).eval()
    return model, [torch.randn(1, 3, 64, 64)]


MODELS = {"gpt2": gpt2, "resnet18": resnet18}


def main():
    out, wanted = sys.argv[1], sys.argv[2:]
    failed = 0
    os.makedirs(out, exist_ok=True)
    for name, make in MODELS.items():
        if wanted and name not in wanted:
            continue
        try:
            module, inputs = make()
            graphpart.capture(module, [i.clone() for i in inputs],
                              os.path.join(out, name), name=name,
                              method="export")
        except Exception as error:  # noqa: BLE001 - reported, the rest go on
            print("FAILED capture %s: %s: %s" % (name, type(error).__name__,
                                                 error))
            failed += 1
            continue
        with torch.no_grad():
            results = module(*inputs)
        results = results if isinstance(results, tuple) else (results,)
        for i, tensor in enumerate(inputs):
            _save(out, "%s.input.%d.npy" % (name, i), tensor)
        for i, tensor in enumerate(results):
            _save(out, "%s.expected.%d.npy" % (name, i), tensor)
        print("captured %s" % name)
    return 1 if failed else 0


def _save(out, file, tensor):
    import numpy as np
    np.save(os.path.join(out, file), _numpy(tensor.detach().cpu()))


if __name__ == "__main__":
    sys.exit(main())
