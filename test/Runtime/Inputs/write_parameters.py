"""Writes what gp-run-parameters.test binds Inputs/parameters.mlir's
parameters from, into the directory argv[1]:

  dir/<name>.npy            each parameter, named verbatim
  p.safetensors             the same, and one tensor the program does not take
  x.npy, affine.npy, scale.npy  an input and the expected results
  missing/, missing.safetensors  without layer.bias
  dtype/, dtype.safetensors      layer.bias as f64
  shape.safetensors         layer.weight of 5 elements
  truncated.safetensors     the first 20 bytes of p.safetensors
  json.safetensors          a header that is not JSON
  offsets.safetensors       a tensor whose data_offsets reach past the data
"""
import json
import os
import struct
import sys

import numpy as np

out = sys.argv[1]
weight = np.array([1, 2, 3, 4], np.float32)
bias = np.array([10, 20, 30, 40], np.float32)
x = np.array([0.5, 1, 1.5, 2], np.float32)
good = {"layer.weight": weight, "layer.bias": bias}
DTYPES = {np.float32: "F32", np.float64: "F64", np.float16: "F16",
          np.int64: "I64"}


def safetensors(name, tensors, header=None, cut=0):
    entries, data = {"__metadata__": {"format": "pt"}}, b""
    for key, value in tensors.items():
        raw = value.tobytes()
        entries[key] = {"dtype": DTYPES[value.dtype.type],
                        "shape": list(value.shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = header if header is not None else json.dumps(entries).encode()
    blob = struct.pack("<Q", len(text)) + text + data
    with open(os.path.join(out, name), "wb") as f:
        f.write(blob[:len(blob) - cut] if cut else blob)
    return blob


def npy_dir(name, tensors):
    os.makedirs(os.path.join(out, name), exist_ok=True)
    for key, value in tensors.items():
        np.save(os.path.join(out, name, key + ".npy"), value)


npy_dir("dir", good)
whole = safetensors("p.safetensors",
                    dict(good, **{"unused.weight": np.zeros(2, np.float32)}))
np.save(os.path.join(out, "x.npy"), x)
np.save(os.path.join(out, "affine.npy"), x * weight + bias)
np.save(os.path.join(out, "scale.npy"), x * weight)

missing = {"layer.weight": weight}
npy_dir("missing", missing)
safetensors("missing.safetensors", missing)
wrong_type = dict(good, **{"layer.bias": bias.astype(np.float64)})
npy_dir("dtype", wrong_type)
safetensors("dtype.safetensors", wrong_type)
safetensors("shape.safetensors",
            dict(good, **{"layer.weight": np.ones(5, np.float32)}))
with open(os.path.join(out, "truncated.safetensors"), "wb") as f:
    f.write(whole[:20])
safetensors("json.safetensors", good, header=b"{\"layer.weight\": oops}")
safetensors("offsets.safetensors", good, cut=4)
