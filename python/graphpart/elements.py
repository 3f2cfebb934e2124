"""The element types the Python package knows, defined once: each by the
manifest's name (MLIR's spelling: "f32", "bf16", "i1"), with torch's name
of its dtype (which is also the graph format's: "float32", "bool"), the
numpy dtype its values are stored as in .npy files and arrays (bfloat16,
which numpy lacks, as its raw bits: uint16), its size in bytes, and its
.safetensors dtype. Everything else here and in the modules that use them
(runtime, parameters, format, externs, the op conversions) is derived
from ELEMENTS. The runtime's C++ twin is
include/GraphPart/Runtime/ElementTypeTable.h.
"""
import collections

import numpy as np

Element = collections.namedtuple(
    "Element", ["name", "torch", "numpy", "size", "safetensors"])

# In the graph format's order (its messages list the types so).
ELEMENTS = collections.OrderedDict((e.name, e) for e in (
    Element("f32", "float32", "<f4", 4, "F32"),
    Element("f16", "float16", "<f2", 2, "F16"),
    Element("bf16", "bfloat16", "<u2", 2, "BF16"),
    Element("f64", "float64", "<f8", 8, "F64"),
    Element("i64", "int64", "<i8", 8, "I64"),
    Element("i32", "int32", "<i4", 4, "I32"),
    Element("i16", "int16", "<i2", 2, "I16"),
    Element("i8", "int8", "|i1", 1, "I8"),
    Element("ui8", "uint8", "|u1", 1, "U8"),
    Element("i1", "bool", "|b1", 1, "BOOL"),
))

# element -> torch's dtype name: "f32" -> "float32" (getattr(torch, ...)).
TORCH_DTYPES = {e.name: e.torch for e in ELEMENTS.values()}

# The graph format's dtype name -> the numpy dtype its arrays hold.
FORMAT_NUMPY = {e.torch: e.numpy for e in ELEMENTS.values()}

# numpy's name of an array's dtype -> the element type of the values
# stored that way, raw bits included: a uint16 array holds bf16.
STORED_ELEMENTS = {np.dtype(e.numpy).name: e.name for e in ELEMENTS.values()}

# The same for arrays that hold the values themselves (torch.from_numpy
# takes them): every type but bf16.
NUMPY_ELEMENTS = {np.dtype(e.numpy).name: e.name for e in ELEMENTS.values()
                  if np.dtype(e.numpy).name == e.torch}
