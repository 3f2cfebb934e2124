"""The element table and the ABI mirrors (abi.test).

    abi_check.py RUNTIME_LIBRARY
"""
import ctypes
import ctypes.util
import os
import sys

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "python"))
import graphpart  # noqa: E402
from check_report import Report  # noqa: E402
from graphpart import abi, elements, format as fmt, parameters  # noqa: E402
from graphpart import runtime as gp_runtime  # noqa: E402
from graphpart.ops import common  # noqa: E402

runtime = sys.argv[1]
libc = ctypes.util.find_library("c") or "libc.so.6"
report = Report("abi", clean=lambda text: text.replace(
    runtime, "RUNTIME").replace(libc, "LIBC"))
check, error = report.check, report.error


# -- element types: one table, the maps derived from it -----------------------
check("element sizes agree with numpy and torch", all(
    np.dtype(e.numpy).itemsize == e.size and
    torch.empty((), dtype=getattr(torch, e.torch)).element_size() == e.size
    for e in elements.ELEMENTS.values()))
# What each module held before elements.py (kept here to pin behaviour).
check("runtime._TORCH_DTYPES as it was", gp_runtime._TORCH_DTYPES == {
    "f32": "float32", "f64": "float64", "f16": "float16",
    "bf16": "bfloat16", "i64": "int64", "i32": "int32", "i16": "int16",
    "i8": "int8", "ui8": "uint8", "i1": "bool"})
check("runtime._NUMPY_TYPES as it was", sorted(gp_runtime._NUMPY_TYPES) ==
      sorted(("float64", "float32", "float16", "int64", "int32", "int16",
              "int8", "uint8", "bool")))
check("runtime._read_npy's element types as they were",
      elements.STORED_ELEMENTS == {
          "float64": "f64", "float32": "f32", "float16": "f16",
          "uint16": "bf16", "int64": "i64", "int32": "i32", "int16": "i16",
          "int8": "i8", "uint8": "ui8", "bool": "i1"})
check("parameters.SAFETENSORS_DTYPES as it was, in its order",
      list(parameters.SAFETENSORS_DTYPES.items()) == [
          ("F64", ("<f8", "f64")), ("F32", ("<f4", "f32")),
          ("F16", ("<f2", "f16")), ("BF16", ("<u2", "bf16")),
          ("I64", ("<i8", "i64")), ("I32", ("<i4", "i32")),
          ("I16", ("<i2", "i16")), ("I8", ("|i1", "i8")),
          ("U8", ("|u1", "ui8")), ("BOOL", ("|b1", "i1"))])
check("write_safetensors' element types as they were",
      elements.NUMPY_ELEMENTS == {
          "float64": "f64", "float32": "f32", "float16": "f16",
          "int64": "i64", "int32": "i32", "int16": "i16", "int8": "i8",
          "uint8": "ui8", "bool": "i1"})
check("format.NUMPY_DTYPES as it was, in its order",
      list(fmt.NUMPY_DTYPES.items()) == [
          ("float32", "<f4"), ("float16", "<f2"), ("bfloat16", "<u2"),
          ("float64", "<f8"), ("int64", "<i8"), ("int32", "<i4"),
          ("int16", "<i2"), ("int8", "|i1"), ("uint8", "|u1"),
          ("bool", "|b1")])
check("ops.common.ELEMENT_TYPES and CONSTANT_TYPES as they were",
      common.ELEMENT_TYPES == {"float32": "f32", "float16": "f16",
                               "bfloat16": "bf16", "bool": "i1",
                               "int64": "i64", "int32": "i64",
                               "int16": "i64", "int8": "i64"} and
      common.NARROW_INTS == {"int32": "i32", "int16": "i16", "int8": "i8"}
      and sorted(common.CONSTANT_TYPES) == sorted(
          ("float32", "float16", "bfloat16", "int64", "bool", "int32",
           "int16", "int8")))

# -- the ctypes mirrors: each of the size the library reports -----------------
lib = gp_runtime._runtime(runtime)
reader = abi.Abi(lib)
for c_name, mirror in abi.MIRRORS:
    print("size %s %d" % (c_name, getattr(reader, "GP_RT_SIZEOF_" + c_name)))
check("every mirror of the library's size", abi.layout_errors(lib) == [])


class LongerValueInfo(ctypes.Structure):
    """gpRtValueInfo as a runtime of another version might lay it out."""
    _fields_ = abi.ValueInfo._fields_ + [("extra", ctypes.c_void_p)]


real = abi.MIRRORS


def with_mirrors(mirrors, action):
    abi.MIRRORS = mirrors
    abi._CHECKED.clear()
    try:
        action()
    finally:
        abi.MIRRORS = real
        abi._CHECKED.clear()


other = tuple((n, LongerValueInfo if n == "gpRtValueInfo" else m)
              for n, m in real)
error("load, a mirror of another size", lambda: with_mirrors(
    other, lambda: graphpart.load("nothing.so", runtime_library=runtime)))
error("register_extern, a mirror of another size", lambda: with_mirrors(
    other, lambda: graphpart.register_extern(
        "mylib::nothing", lambda x: x, runtime_library=runtime)))
error("load, a size not reported", lambda: with_mirrors(
    real + (("gpRtNoSuchStruct", abi.ValueInfo),),
    lambda: graphpart.load("nothing.so", runtime_library=runtime)))
abi._CHECKED.clear()
check("the real mirrors load again",
      gp_runtime._runtime(runtime) is not None and len(abi._CHECKED) == 1)
error("not the runtime", lambda: graphpart.load(
    "nothing.so", runtime_library=libc))
report.exit()
