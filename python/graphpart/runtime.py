"""Run GraphPart artifacts from Python on torch tensors, through the
runtime's C ABI (ctypes; no compiler needed).

    model = graphpart.load("model.so", backend="host", weights="model.w")
    y = model(x)                    # the first entry; model.entry("f")(x)

Contiguous arguments are passed without copies: each tensor's data
pointer, sizes and strides become the entry's descriptor, so a replay reads
the caller's memory (CPU tensors on the host backend, CUDA tensors on the
program's device on the cuda backend). Entries take row-major arguments,
so a strided view (a transpose, a slice) is copied first. Results are
copied (on the device, by PyTorch) into fresh tensors, which stay valid
whatever runs next; with `views=True` they are returned as views of the
program's memory instead, valid until the entry runs again on the thread
(`debug_overwrite=True` poisons the stale ones: see load). A program
that writes its inputs in place (`x.add_(y)`, `y.copy_(z)`) returns their
final values after its outputs (convert_program's `mutated_inputs`); given
`mutated_inputs=`, the call copies those back into the argument tensors and
returns the outputs only, as the PyTorch function did. Before a call on the cuda backend the
runtime waits for PyTorch's queued work, and the call returns once its
results are written.
"""
import ctypes
import os

import numpy as np

from .format import GraphError

_TORCH_DTYPES = {"f32": "float32", "f64": "float64", "f16": "float16",
                 "bf16": "bfloat16", "i64": "int64", "i32": "int32",
                 "i8": "int8", "ui8": "uint8", "i1": "bool"}



class _CudaMemory:
    """Device memory as __cuda_array_interface__ bytes, so torch.as_tensor
    wraps it without a copy (and without synchronising: no stream)."""

    def __init__(self, address, size):
        self.__cuda_array_interface__ = {
            "shape": (size,), "typestr": "|u1", "data": (address, False),
            "version": 3, "strides": None}


def _view(torch, address_words, rank, dtype, device):
    """The buffer a gpRtMemRef describes, as a tensor over its memory
    (no copy) on `device` ("cpu" for host memory, "cuda:N")."""
    words = ctypes.cast(address_words, ctypes.POINTER(ctypes.c_int64))
    aligned, offset = words[1], words[2]
    shape = [words[3 + d] for d in range(rank)]
    strides = [words[3 + rank + d] for d in range(rank)]
    itemsize = torch.empty((), dtype=dtype).element_size()
    if any(s == 0 for s in shape):
        return torch.empty(shape, dtype=dtype, device=device)
    if any(s < 0 for s in strides):
        raise GraphError("a buffer with negative strides %s" % strides)
    extent = 1 + sum((n - 1) * s for n, s in zip(shape, strides))
    start = aligned + offset * itemsize
    if device != "cpu":
        raw = torch.as_tensor(_CudaMemory(start, extent * itemsize),
                              device=device)
    else:
        raw = torch.frombuffer(
            (ctypes.c_uint8 * (extent * itemsize)).from_address(start),
            dtype=torch.uint8)
    return raw.view(dtype).as_strided(shape, strides)


class _ValueInfo(ctypes.Structure):
    _fields_ = [("isBuffer", ctypes.c_int32), ("elementType", ctypes.c_char_p),
                ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("device", ctypes.c_char_p)]


class _EntryInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("numArgs", ctypes.c_int32),
                ("args", ctypes.POINTER(_ValueInfo)),
                ("numResults", ctypes.c_int32),
                ("results", ctypes.POINTER(_ValueInfo))]


def _runtime(path=None):
    path = path or os.environ.get("GRAPHPART_RUNTIME_LIBRARY") or \
        "libgpruntime.so"
    try:
        # Global: artifacts the runtime dlopens resolve gpRt* against it.
        lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError as error:
        raise GraphError("cannot load the GraphPart runtime '%s' (%s): pass "
                         "runtime_library= or set GRAPHPART_RUNTIME_LIBRARY"
                         % (path, error))
    lib.gpRtGetLastError.restype = ctypes.c_char_p
    lib.gpRtArtifactTarget.restype = ctypes.c_char_p
    return lib


class Entry:
    """One entry point, called with torch tensors (and ints for index
    arguments); returns a tensor or a tuple of them."""

    def __init__(self, artifact, index, info, mutated_inputs=()):
        self.artifact, self.index = artifact, index
        self.name = info.name.decode()
        self.args = [info.args[i] for i in range(info.numArgs)]
        self.results = [info.results[i] for i in range(info.numResults)]
        self.mutated_inputs = list(mutated_inputs)
        if len(self.mutated_inputs) > len(self.results) or any(
                not 0 <= i < len(self.args) for i in self.mutated_inputs):
            raise GraphError("%s: mutated_inputs %s do not fit an entry of "
                             "%d argument(s) and %d result(s)" % (
                                 self.name, self.mutated_inputs,
                                 len(self.args), len(self.results)))

    def _describe(self, position, value, spec):
        import torch
        if not spec.isBuffer:
            if not isinstance(value, int):
                raise GraphError("%s: argument %d is an index; got %r"
                                 % (self.name, position, type(value)))
            return ctypes.c_int64(value), None
        if not isinstance(value, torch.Tensor):
            raise GraphError("%s: argument %d must be a tensor"
                             % (self.name, position))
        element = spec.elementType.decode()
        wanted = _TORCH_DTYPES.get(element)
        if wanted is None or value.dtype != getattr(torch, wanted):
            raise GraphError("%s: argument %d is %s; the entry takes %s"
                             % (self.name, position, value.dtype, element))
        shape = [spec.shape[i] for i in range(spec.rank)]
        if value.dim() != spec.rank or any(
                s >= 0 and s != d for s, d in zip(shape, value.shape)):
            raise GraphError("%s: argument %d has shape %s; the entry takes "
                             "%s" % (self.name, position, list(value.shape),
                                     ["?" if s < 0 else s for s in shape]))
        cuda = self.artifact.target == "cuda"
        if value.is_cuda != cuda:
            raise GraphError("%s: argument %d is on %s; a %s artifact takes "
                             "%s tensors" % (self.name, position,
                                             value.device, self.artifact.target,
                                             "CUDA" if cuda else "CPU"))
        # Entry arguments have row-major layouts (gp-compile bufferizes
        # function boundaries to identity layouts): a strided view is
        # copied, everything else is passed as it lies.
        value = value.contiguous()
        words = [value.data_ptr(), value.data_ptr(), 0]
        words += list(value.shape) + list(value.stride())
        return (ctypes.c_int64 * len(words))(*words), value

    def __call__(self, *values):
        import torch
        if len(values) != len(self.args) - len(self.artifact.weights.get(
                self.name, [])):
            raise GraphError("%s takes %d argument(s), got %d" % (
                self.name, len(self.args) -
                len(self.artifact.weights.get(self.name, [])), len(values)))
        values = list(values) + self.artifact.weights.get(self.name, [])
        slots, keep = [], []
        for position, (value, spec) in enumerate(zip(values, self.args)):
            slot, tensor = self._describe(position, value, spec)
            slots.append(slot)
            keep.append(tensor)
        args = (ctypes.c_void_p * max(1, len(slots)))(
            *[ctypes.cast(ctypes.pointer(s), ctypes.c_void_p) for s in slots])
        results = [(ctypes.c_int64 * (3 + 2 * r.rank))() if r.isBuffer
                   else ctypes.c_int64() for r in self.results]
        result_ptrs = (ctypes.c_void_p * max(1, len(results)))(
            *[ctypes.cast(ctypes.pointer(r), ctypes.c_void_p)
              for r in results])
        if self.artifact.target == "cuda":
            torch.cuda.synchronize()
        lib = self.artifact.lib
        self.artifact.check(lib.gpRtArtifactCall(
            self.artifact.handle, self.index, args, result_ptrs),
            "call " + self.name)
        # Results stay in the program's memory until the next call: wait
        # for the work, then view them there (views=True) or copy them.
        self.artifact.check(lib.gpRtProgramSynchronize(self.artifact.program),
                            "call " + self.name)
        outputs = []
        for spec, storage in zip(self.results, results):
            if not spec.isBuffer:
                outputs.append(storage.value)
                continue
            dtype = getattr(torch, _TORCH_DTYPES[spec.elementType.decode()])
            view = _view(torch, ctypes.addressof(storage), spec.rank, dtype,
                         self.artifact.memory_device(spec.device.decode()))
            outputs.append(view if self.artifact.views else
                           view.clone(memory_format=torch.contiguous_format))
        if self.mutated_inputs:
            written = outputs[len(outputs) - len(self.mutated_inputs):]
            outputs = outputs[:len(outputs) - len(self.mutated_inputs)]
            for position, value in zip(self.mutated_inputs, written):
                values[position].copy_(value)
        return outputs[0] if len(outputs) == 1 else tuple(outputs)


class Artifact:
    """A loaded artifact; calling it calls its first entry."""

    def __init__(self, path, backend=None, device=-1, weights=None,
                 runtime_library=None, mutated_inputs=None, views=False,
                 debug_overwrite=False):
        self.lib = _runtime(runtime_library)
        self.views, self.device = views, device
        inspected = ctypes.c_void_p()
        self.check(self.lib.gpRtArtifactInspect(path.encode(),
                                                ctypes.byref(inspected)),
                   "load " + path)
        self.target = self.lib.gpRtArtifactTarget(inspected).decode()
        self.lib.gpRtArtifactUnload(inspected)
        backend = backend or self.target
        if backend not in ("host", "cuda"):
            raise GraphError("backend must be host or cuda, got %r" % backend)
        self.handle = ctypes.c_void_p()
        self.check(self.lib.gpRtArtifactLoad(
            path.encode(), 0 if backend == "host" else 1, device,
            ctypes.byref(self.handle)), "load " + path)
        self.program = ctypes.c_void_p()
        self.check(self.lib.gpRtArtifactGetProgram(
            self.handle, ctypes.byref(self.program)), "load " + path)
        if debug_overwrite:
            self.check(self.lib.gpRtArtifactSetDebugOverwrite(self.handle, 1),
                       "load " + path)
        self.entries = {}
        count = self.lib.gpRtArtifactNumEntries(self.handle)
        if isinstance(mutated_inputs, (list, tuple)):
            if count != 1:
                raise GraphError("mutated_inputs as a list needs an artifact "
                                 "of one entry; this one has %d: pass a "
                                 "dict of entry names" % count)
            mutated_inputs = {None: mutated_inputs}
        mutated_inputs = dict(mutated_inputs or {})
        for index in range(count):
            info = _EntryInfo()
            self.check(self.lib.gpRtArtifactGetEntry(
                self.handle, index, ctypes.byref(info)), "entry")
            name = info.name.decode()
            entry = Entry(self, index, info, mutated_inputs.pop(
                name, mutated_inputs.pop(None, ())))
            self.entries[entry.name] = entry
        if mutated_inputs:
            raise GraphError("mutated_inputs names no entry: %s"
                             % ", ".join(map(str, mutated_inputs)))
        self.weights = self._read_weights(weights) if weights else {}

    def _read_weights(self, directory):
        """gp-compile --weights DIR: each entry's trailing weight
        arguments, listed in DIR/<entry>.weights."""
        import torch
        weights = {}
        for name, entry in self.entries.items():
            listing = os.path.join(directory, name + ".weights")
            if not os.path.exists(listing):
                continue
            with open(listing) as f:
                files = [line.strip() for line in f if line.strip()]
            tensors = [torch.from_numpy(np.load(os.path.join(directory, f)))
                       for f in files]
            if self.target == "cuda":
                tensors = [t.cuda() for t in tensors]
            weights[name] = tensors
        return weights

    def memory_device(self, device):
        """Where a buffer the manifest places on `device` lies, as torch
        names it: host memory on the host backend and for cpu buffers."""
        if self.target != "cuda" or not device.startswith("cuda"):
            return "cpu"
        index = self.device if self.device >= 0 else \
            int(device.partition(":")[2] or 0)
        return "cuda:%d" % index

    def check(self, status, what):
        if status != 0:
            raise GraphError("%s: %s" % (
                what, self.lib.gpRtGetLastError().decode()))

    def entry(self, name):
        if name not in self.entries:
            raise GraphError("no entry '%s' (entries: %s)"
                             % (name, ", ".join(self.entries)))
        return self.entries[name]

    def __call__(self, *values):
        return next(iter(self.entries.values()))(*values)

    def close(self):
        if self.handle:
            self.lib.gpRtArtifactUnload(self.handle)
            self.handle = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def load(path, backend=None, device=-1, weights=None, runtime_library=None,
         mutated_inputs=None, views=False, debug_overwrite=False):
    """Loads the artifact gp-compile made at `path` (see the module
    comment); `weights` is the directory gp-compile --weights wrote;
    `mutated_inputs` lists the argument positions whose final values are
    the trailing results (a list for a one-entry artifact, else a dict
    from entry name to list). `views=True` returns results as views of the
    program's memory, without copies, valid until the entry runs again;
    `debug_overwrite=True` makes a later call poison the views it
    overwrites (NaN, -1) rather than show its own values, to find reads of
    stale views."""
    return Artifact(path, backend, device, weights, runtime_library,
                    mutated_inputs, views, debug_overwrite)
