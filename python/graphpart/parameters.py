"""Parameter values from files: safetensors files and directories of .npy
files, read and written with numpy alone (no torch, no safetensors
package), as gp-run --parameters reads them.

A safetensors file is an 8-byte little-endian header length N, N bytes of
JSON ({"name": {"dtype": "F32", "shape": [...], "data_offsets": [begin,
end]}, "__metadata__": {...}}), then the data, each tensor row-major and
little-endian at [8 + N + begin, 8 + N + end).
"""
import json
import math
import os
import struct

import numpy as np

from .elements import ELEMENTS, NUMPY_ELEMENTS
from .format import GraphError

# safetensors dtype -> (numpy dtype of the stored bytes, the manifest's
# element type), from elements.py: F64 first, then the format's order.
# bfloat16 is held as its raw bits (uint16), as .npy files hold it.
SAFETENSORS_DTYPES = {
    e.safetensors: (e.numpy, e.name) for e in sorted(
        ELEMENTS.values(), key=lambda e: e.name != "f64")}
_BY_ELEMENT = {element: name for name, (_, element) in
               SAFETENSORS_DTYPES.items()}
_MAX_HEADER = 100 * 1024 * 1024


def read_safetensors_header(path):
    """(header dict without __metadata__, offset of the data) of the file
    at `path`; GraphError naming what is wrong."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            raw = f.read(8)
            if len(raw) < 8:
                raise GraphError("%s: not a safetensors file (shorter than "
                                 "its 8-byte header length)" % path)
            (length,) = struct.unpack("<Q", raw)
            if length > min(size - 8, _MAX_HEADER):
                raise GraphError("%s: header length %d reaches past the end "
                                 "of the file (%d bytes)" % (path, length,
                                                             size))
            header = json.loads(f.read(length).decode("utf-8"))
    except OSError as error:
        raise GraphError("cannot read %s: %s" % (path, error.strerror))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise GraphError("%s: the header is not JSON: %s" % (path, error))
    if not isinstance(header, dict):
        raise GraphError("%s: the header is not a JSON object" % path)
    header.pop("__metadata__", None)
    data_size = size - 8 - length
    for name, entry in header.items():
        where = "%s: tensor '%s'" % (path, name)
        if not isinstance(entry, dict) or not isinstance(
                entry.get("dtype"), str) or entry["dtype"] not in \
                SAFETENSORS_DTYPES or not isinstance(entry.get("shape"),
                                                     list):
            raise GraphError("%s: needs a known dtype (%s) and a shape"
                             % (where, ", ".join(SAFETENSORS_DTYPES)))
        offsets = entry.get("data_offsets")
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(
                isinstance(o, int) and not isinstance(o, bool)
                for o in offsets)):
            raise GraphError("%s: data_offsets must be [begin, end]" % where)
        if any(not isinstance(d, int) or isinstance(d, bool) or d < 0
               for d in entry["shape"]):
            raise GraphError("%s: bad shape %s" % (where, entry["shape"]))
        itemsize = np.dtype(SAFETENSORS_DTYPES[entry["dtype"]][0]).itemsize
        count = math.prod(entry["shape"])  # exact: no int64 overflow
        begin, end = offsets
        if not 0 <= begin <= end <= data_size or \
                end - begin != count * itemsize:
            raise GraphError("%s: data_offsets %s do not hold %d bytes "
                             "inside the file's %d bytes of data"
                             % (where, offsets, count * itemsize, data_size))
    return header, 8 + length


def read_safetensors(path, names=None):
    """name -> (numpy array, element type) for `names` (all when None) of
    the safetensors file at `path`, read without copying more than asked."""
    header, start = read_safetensors_header(path)
    found = {}
    with open(path, "rb") as f:
        for name, entry in header.items():
            if names is not None and name not in names:
                continue
            stored, element = SAFETENSORS_DTYPES[entry["dtype"]]
            begin, end = entry["data_offsets"]
            f.seek(start + begin)
            array = np.frombuffer(f.read(end - begin), dtype=stored)
            found[name] = (array.reshape(entry["shape"]), element)
    return found


def write_safetensors(path, tensors):
    """Writes `tensors` (name -> numpy array, or (array, element type) for
    a type numpy lacks: ("bf16" with raw uint16 bits)) as a safetensors
    file."""
    header, blobs, offset = {}, [], 0
    for name, value in tensors.items():
        array, element = value if isinstance(value, tuple) else (value, None)
        array = np.ascontiguousarray(array)
        if element is None:
            element = NUMPY_ELEMENTS.get(str(array.dtype))
        if element not in _BY_ELEMENT:
            raise GraphError("tensor '%s': element type %s cannot be written "
                             "as safetensors" % (name, array.dtype))
        raw = array.astype(SAFETENSORS_DTYPES[_BY_ELEMENT[element]][0],
                           copy=False).tobytes()
        header[name] = {"dtype": _BY_ELEMENT[element],
                        "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)  # data 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for raw in blobs:
            f.write(raw)
