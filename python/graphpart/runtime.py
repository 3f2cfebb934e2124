"""Run GraphPart artifacts from Python on torch tensors, through the
runtime's C ABI (no compiler needed).

    model = graphpart.load("model.so", module=torch_module)   # bound once
    y = model(x)                    # the first entry, or by name:
    y = model.entry("MyModule")(x)  # (the captured function's or class's)

Parameters. A program's weights are its named parameters (the module's
fully qualified names, `gp.parameter` in the IR), bound once when the
artifact is loaded, never passed per call:
- `module=`: the live module's own tensors, without a copy. The program
  reads them where they lie, so an update in place (`load_state_dict`,
  an optimizer step, `p.data.copy_(...)`) is seen by the next call and no
  second copy of the weights exists. A tensor the module replaces or
  moves (`.to()`, `load_state_dict(assign=True)`, `m.w = Parameter(...)`)
  is bound again before the next call when it still fits (dtype, shape,
  device), else the call fails naming the parameter; nothing reads the old
  memory.
- `parameters=`: a state dict (name -> tensor or numpy array), a
  `.safetensors` file, a directory of NAME.npy files (what capture saves
  in GRAPH/parameters/, and gp-compile --weights writes), or a list of
  these (the first that has a name wins). Values are copied once to the
  program's device. They take precedence over `module`.
- `weights=`: the directory gp-compile --weights wrote: by name as
  `parameters=` for a program that names its weights, else each entry's
  trailing weight arguments by position, from the .npy files
  DIR/<entry>.weights lists (as gp-run --weights), passed by every call.
A parameter missing, of the wrong dtype or shape, or on the wrong device,
and a weights directory missing or giving nothing, are GraphErrors at load
naming it, and nothing runs.

Gradients. Artifacts compute none: a call whose argument requires grad in
grad mode, or of an artifact bound to a module in training mode whose
parameters require grad, warns once per artifact that it is inference only
(its results do not require grad).

Calls. User tensors are passed without copies (their data pointers, sizes
and strides become the entry's descriptors; entries take row-major
arguments, so a strided view is copied first). On the cuda backend a call
is ordered on PyTorch's current CUDA stream (the runtime waits for the
work queued there and makes later work there wait for the call), with no
device-wide synchronization before or after; it returns once the work is
queued. Results are copied (on that stream) into fresh tensors, which stay
valid whatever runs next; with `views=True` they are views of the
program's memory instead, valid until the entry runs again on the thread
(`debug_overwrite=True` poisons the stale ones: see load). A program that
writes its inputs in place returns their final values after its outputs
(convert_program's `mutated_inputs`); given `mutated_inputs=`, the call
copies those back into the argument tensors and returns the outputs only,
as the PyTorch function did.

Arguments are checked before anything runs, each a GraphError naming it:
their number (positional only), dtype, shape and sizes the program uses as
one, device; an index's range (int64); a tensor without memory an entry can
read (meta, sparse, mkldnn, nested) or whose storage no longer holds what
its sizes reach. A negated or conjugated view (`x.conj().imag`) is resolved
first, as a strided view is copied. An argument the program writes
(mutated_inputs) must be one eager PyTorch would write in place: not an
expanded tensor, not requiring grad in grad mode, not an inference tensor
outside inference mode. A result with `views=True` that lies in an
argument's memory (a program returning what it was given) is a view that
keeps that tensor alive.

The per-call work is done by a small C++ extension (_native.cpp), built on
first use with torch.utils.cpp_extension and cached (GRAPHPART_NATIVE_DIR,
default ~/.cache/graphpart): a call costs the same whatever the number of
parameters. Where it cannot be built the same checks run in Python through
ctypes (`Artifact.native` says which, `native_error()` why);
GRAPHPART_NATIVE=0 turns it off, GRAPHPART_NATIVE=require makes a failed
build an error.
"""
import ctypes
import hashlib
import os
import warnings
import weakref

import numpy as np

from .abi import EntryInfo as _EntryInfo, ParameterInfo as _ParameterInfo
from .abi import check_layouts
from .elements import NUMPY_ELEMENTS, STORED_ELEMENTS
from .elements import TORCH_DTYPES as _TORCH_DTYPES
from .format import GraphError, read_npy
from .parameters import read_safetensors

# Index arguments are int64.
_INDEX_RANGE = (-2 ** 63, 2 ** 63)
# The numpy dtypes a parameter's array may have (torch.from_numpy's).
_NUMPY_TYPES = tuple(NUMPY_ELEMENTS)


def _unusual(torch, tensor):
    """Why `tensor` has no memory an entry can read (its layout is not
    strided: sparse, mkldnn; a nested tensor), or None."""
    if tensor.layout != torch.strided:
        return "a %s tensor; entries take dense (strided) tensors" % (
            str(tensor.layout).replace("torch.", ""))
    if getattr(tensor, "is_nested", False):
        return "a nested tensor; entries take dense (strided) tensors"
    return None


def _storage_bytes(tensor):
    if hasattr(tensor, "untyped_storage"):
        return tensor.untyped_storage().nbytes()
    return tensor.storage().nbytes()


def _check_memory(tensor, what):
    """GraphError naming `what` when `tensor`'s sizes, strides and offset
    reach past its storage (a storage resized after the tensor was made):
    the program would read or write memory the tensor does not own."""
    if tensor.numel() == 0 or tensor.is_meta:
        return
    reach = tensor.storage_offset() + 1 + sum(
        (n - 1) * s for n, s in zip(tensor.shape, tensor.stride()))
    reach *= tensor.element_size()
    held = _storage_bytes(tensor)
    if reach > held:
        raise GraphError("%s: its storage holds %d byte(s), but its sizes "
                         "%s, strides %s and offset %d reach %d (a storage "
                         "resized after the tensor was made)" % (
                             what, held, list(tensor.shape),
                             list(tensor.stride()), tensor.storage_offset(),
                             reach))


def _as_read(tensor):
    """`tensor` with its negation or conjugation applied (a copy), where it
    is a lazy view (`x.conj().imag`, torch._neg_view): its memory holds
    other values than it shows."""
    if getattr(tensor, "is_neg", None) and tensor.is_neg():
        tensor = tensor.resolve_neg()
    if getattr(tensor, "is_conj", None) and tensor.is_conj():
        tensor = tensor.resolve_conj()
    return tensor


def _overlaps_itself(tensor):
    """Whether elements of `tensor` share memory (a stride 0 over more
    than one element: an expanded tensor)."""
    return any(s == 0 and n > 1 for n, s in zip(tensor.shape,
                                                tensor.stride()))


def _value_text(info):
    """An argument's or result's type for a message: f32[?, 4], index."""
    if not info.isBuffer:
        return "index"
    return "%s[%s]" % (info.elementType.decode(), ", ".join(
        "?" if info.shape[d] < 0 else str(info.shape[d])
        for d in range(info.rank)))


def _alias_view(torch, kept, start, shape, strides, dtype):
    """The result at address `start` as a view of `kept` (an argument
    tensor passed to the call, maybe a copy made for it) where it lies in
    that tensor's memory, so that the view keeps the memory alive; else
    None."""
    itemsize = kept.element_size()
    if kept.dtype != dtype or kept.numel() == 0 or \
            (start - kept.data_ptr()) % itemsize:
        return None
    extent = 1 + sum((n - 1) * s for n, s in zip(shape, strides))
    first = (start - kept.data_ptr()) // itemsize
    if first < 0 or first + extent > kept.numel():
        return None
    return kept.detach().as_strided(shape, strides,
                                    kept.storage_offset() + first)


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


def _runtime(path=None):
    path = path or os.environ.get("GRAPHPART_RUNTIME_LIBRARY") or \
        "libgpruntime.so"
    if not isinstance(path, (str, os.PathLike)):
        raise GraphError("runtime_library must be a path, got %s"
                         % type(path).__name__)
    path = os.fspath(path)
    try:
        # Global: artifacts the runtime dlopens resolve gpRt* against it.
        lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError as error:
        raise GraphError("cannot load the GraphPart runtime '%s' (%s): pass "
                         "runtime_library= or set GRAPHPART_RUNTIME_LIBRARY"
                         % (path, error))
    try:
        lib.gpRtGetLastError.restype = ctypes.c_char_p
        lib.gpRtArtifactTarget.restype = ctypes.c_char_p
    except AttributeError as error:
        raise GraphError("'%s' is not the GraphPart runtime (%s): pass "
                         "runtime_library= or set GRAPHPART_RUNTIME_LIBRARY"
                         % (path, error))
    # The structs this package reads and fills, laid out as the library
    # lays them out (abi.py): else a GraphError, before any is used.
    check_layouts(lib, path)
    return lib


# -- the native call path ----------------------------------------------------
_NATIVE = {}


def _native():
    """The C++ extension (built once per process and cached on disk), or
    None where it cannot be built (native_error() says why)."""
    if "module" in _NATIVE:
        return _NATIVE["module"]
    mode = os.environ.get("GRAPHPART_NATIVE", "1")
    module, error = None, None
    if mode == "0":
        error = "GRAPHPART_NATIVE=0"
    else:
        try:
            import torch
            from torch.utils import cpp_extension
            source = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                  "_native.cpp")
            with open(source, "rb") as f:
                digest = hashlib.sha1(f.read() + torch.__version__.encode()
                                      ).hexdigest()[:12]
            directory = os.environ.get("GRAPHPART_NATIVE_DIR") or \
                os.path.join(os.path.expanduser("~"), ".cache", "graphpart")
            directory = os.path.join(directory, "native-" + digest)
            os.makedirs(directory, exist_ok=True)
            module = cpp_extension.load(
                name="graphpart_native_" + digest, sources=[source],
                build_directory=directory, extra_cflags=["-O2"],
                verbose=False)
            module.set_error_type(GraphError)
        except Exception as failure:  # a compiler's or loader's, any type
            module, error = None, "%s: %s" % (type(failure).__name__,
                                              failure)
            if mode == "require":
                raise GraphError("GRAPHPART_NATIVE=require: the native call "
                                 "path cannot be built: " + error)
    _NATIVE["module"], _NATIVE["error"] = module, error
    return module


def native_error():
    """Why the native call path is not in use (None when it is, or before
    any artifact was loaded)."""
    return _NATIVE.get("error")


# -- where module tensors are replaced ----------------------------------------
# Artifacts bound to live modules: a parameter or buffer registered
# anywhere (`m.w = Parameter(...)`, load_state_dict(assign=True)) makes
# each look its module's tensors up again before its next call.
_WATCHING = weakref.WeakSet()
_HOOKS = {}


def _watch_registrations(torch):
    if "installed" in _HOOKS:
        return _HOOKS["installed"]
    module = torch.nn.modules.module
    parameter = getattr(module, "register_module_parameter_registration_hook",
                        None)
    buffer = getattr(module, "register_module_buffer_registration_hook", None)
    installed = parameter is not None and buffer is not None
    if installed:
        def registered(*_):
            for artifact in list(_WATCHING):
                artifact._stale = True
        _HOOKS["handles"] = (parameter(registered), buffer(registered))
    _HOOKS["installed"] = installed
    return installed


def _module_tensors(module):
    """name -> (the dict holding it, its key) for every parameter and buffer
    of `module`, under every name (tied tensors under each)."""
    found = {}
    for prefix, sub in module.named_modules(remove_duplicate=False):
        for holder in (sub._parameters, sub._buffers):
            for key, tensor in holder.items():
                if tensor is not None:
                    found[prefix + "." + key if prefix else key] = (holder,
                                                                    key)
    return found


class _Parameter:
    """A parameter the program takes, as the manifest declares it."""

    def __init__(self, info):
        self.name = info.name.decode()
        self.element = info.elementType.decode()
        self.shape = [info.shape[i] for i in range(info.rank)]
        self.device = info.device.decode()


class Entry:
    """One entry point, called with torch tensors (and ints for index
    arguments): the user's inputs, parameters bound at load. Returns a
    tensor or a tuple of them."""

    def __init__(self, artifact, index, info, mutated_inputs=()):
        self.artifact, self.index = artifact, index
        self.name = info.name.decode()
        self.args = [info.args[i] for i in range(info.numArgs)]
        self.results = [info.results[i] for i in range(info.numResults)]
        self.parameters = {i: a.parameter.decode() for i, a in
                           enumerate(self.args) if a.parameter}
        self.user_args = [i for i in range(len(self.args))
                          if i not in self.parameters]
        self.mutated_inputs = list(mutated_inputs)
        if len(self.mutated_inputs) > len(self.results) or any(
                not isinstance(i, int) or isinstance(i, bool) or
                i not in self.user_args for i in self.mutated_inputs) or \
                len(set(self.mutated_inputs)) != len(self.mutated_inputs):
            raise GraphError("%s: mutated_inputs %s do not fit an entry of "
                             "%d input(s) and %d result(s) (argument "
                             "positions, each once)" % (
                                 self.name, self.mutated_inputs,
                                 len(self.user_args), len(self.results)))
        # Each written argument takes its trailing result: of its type.
        first = len(self.results) - len(self.mutated_inputs)
        for index, position in enumerate(self.mutated_inputs, first):
            arg, result = self.args[position], self.results[index]
            fits = arg.isBuffer and result.isBuffer and \
                arg.elementType == result.elementType and \
                arg.rank == result.rank and all(
                    arg.shape[d] < 0 or result.shape[d] < 0 or
                    arg.shape[d] == result.shape[d] for d in range(arg.rank))
            if not fits:
                raise GraphError(
                    "%s: mutated_inputs: argument %d (%s) cannot take result "
                    "%d (%s), its final value by position" % (
                        self.name, self.user_args.index(position),
                        _value_text(arg), index, _value_text(result)))
        # Results in host memory of a cuda program are read at once.
        self.host_results = artifact.target == "cuda" and any(
            r.isBuffer and artifact.memory_device(r.device.decode()) ==
            "cpu" for r in self.results)
        self._native = None
        # Trailing weight arguments bound at load by position (an artifact
        # whose weights are not named parameters; DIR/<entry>.weights).
        self.weights, self.weights_dir = (), None

    def _use_native(self, native, functions):
        artifact = self.artifact
        args = [(bool(a.isBuffer), i in self.parameters,
                 a.elementType.decode() if a.isBuffer else "",
                 [a.shape[d] for d in range(a.rank)] if a.isBuffer else [])
                for i, a in enumerate(self.args)]
        results = [(bool(r.isBuffer),
                    r.elementType.decode() if r.isBuffer else "", r.rank,
                    r.isBuffer and artifact.memory_device(
                        r.device.decode()) == "cpu")
                   for r in self.results]
        device = artifact.device_index()
        self._native = native.EntryCaller(
            functions, artifact.handle.value, artifact.program.value,
            self.index, self.name, args, results, artifact.target == "cuda",
            device, bool(artifact.views), self.mutated_inputs)

    def _describe(self, position, value, spec):
        import torch
        if not spec.isBuffer:
            if not isinstance(value, int) or isinstance(value, bool):
                raise GraphError("%s: argument %d is an index; got %r"
                                 % (self.name, position, type(value)))
            if not _INDEX_RANGE[0] <= value < _INDEX_RANGE[1]:
                raise GraphError("%s: argument %d is an index; %d is "
                                 "outside int64" % (self.name, position,
                                                    value))
            return ctypes.c_int64(value), None
        if not isinstance(value, torch.Tensor):
            raise GraphError("%s: argument %d must be a tensor; got %s"
                             % (self.name, position, type(value).__name__))
        unusual = _unusual(torch, value)
        if unusual:
            raise GraphError("%s: argument %d is %s" % (self.name, position,
                                                       unusual))
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
        if value.is_meta:
            raise GraphError("%s: argument %d is a meta tensor, which holds "
                             "no data" % (self.name, position))
        cuda = self.artifact.target == "cuda"
        if value.is_cuda != cuda:
            raise GraphError("%s: argument %d is on %s; a %s artifact takes "
                             "%s tensors" % (self.name, position,
                                             value.device, self.artifact.target,
                                             "CUDA" if cuda else "CPU"))
        if cuda and value.device.index != self.artifact.device_index():
            raise GraphError("%s: argument %d is on %s; the program runs on "
                             "cuda:%d" % (self.name, position, value.device,
                                          self.artifact.device_index()))
        _check_memory(value, "%s: argument %d" % (self.name, position))
        # Entry arguments have row-major layouts (gp-compile bufferizes
        # function boundaries to identity layouts): a strided view is
        # copied, and a negated or conjugated view resolved; everything
        # else is passed as it lies.
        value = _as_read(value).contiguous()
        words = [value.data_ptr(), value.data_ptr(), 0]
        # An empty tensor's strides are arbitrary (numpy's are 0): given
        # as row-major ones, which the entry takes.
        strides = list(value.stride()) if value.numel() else [
            int(np.prod(value.shape[d + 1:])) for d in range(value.dim())]
        words += list(value.shape) + strides
        return (ctypes.c_int64 * len(words))(*words), value

    def __call__(self, *values, **keywords):
        artifact = self.artifact
        if keywords:
            raise GraphError("%s takes its arguments by position; got "
                             "keyword argument(s) %s" % (
                                 self.name, ", ".join(sorted(keywords))))
        if not artifact.handle:
            raise GraphError("call %s: the artifact was closed" % self.name)
        if not artifact._grad_warned and artifact._grad_enabled():
            artifact._warn_gradients(values)
        if artifact._stale or artifact._moved():
            artifact._refresh()
        if self.weights:
            if len(values) + len(self.weights) != len(self.user_args):
                raise GraphError(
                    "%s takes %d argument(s) besides its %d weight(s) from "
                    "'%s', got %d" % (self.name, len(self.user_args) -
                                      len(self.weights), len(self.weights),
                                      self.weights_dir, len(values)))
            values = values + self.weights
        if self._native is not None:
            return self._native.call(artifact._stream(), *values)
        return self._call_ctypes(values)

    def _call_ctypes(self, values):
        import torch
        artifact = self.artifact
        if len(values) != len(self.user_args):
            raise GraphError("%s takes %d argument(s), got %d" % (
                self.name, len(self.user_args), len(values)))
        slots, keep = [None] * len(self.args), []
        for user, (position, value) in enumerate(zip(self.user_args,
                                                     values)):
            slot, tensor = self._describe(user, value, self.args[position])
            slots[position] = ctypes.cast(ctypes.pointer(slot),
                                          ctypes.c_void_p)
            keep.append((slot, tensor))
        self._check_written(torch, values)
        args = (ctypes.c_void_p * max(1, len(slots)))(*slots)
        results = [(ctypes.c_int64 * (3 + 2 * r.rank))() if r.isBuffer
                   else ctypes.c_int64() for r in self.results]
        result_ptrs = (ctypes.c_void_p * max(1, len(results)))(
            *[ctypes.cast(ctypes.pointer(r), ctypes.c_void_p)
              for r in results])
        lib = artifact.lib
        if artifact.target == "cuda":
            artifact.check(lib.gpRtArtifactCallOnStreamChecked(
                artifact.handle, self.index, args, len(slots), result_ptrs,
                len(results), ctypes.c_void_p(artifact._stream())),
                "call " + self.name)
            if self.host_results:
                artifact.check(lib.gpRtProgramSynchronize(artifact.program),
                               "call " + self.name)
        else:
            artifact.check(lib.gpRtArtifactCallChecked(
                artifact.handle, self.index, args, len(slots), result_ptrs,
                len(results)), "call " + self.name)
        outputs = []
        for spec, storage in zip(self.results, results):
            if not spec.isBuffer:
                outputs.append(storage.value)
                continue
            dtype = getattr(torch, _TORCH_DTYPES[spec.elementType.decode()])
            view = _view(torch, ctypes.addressof(storage), spec.rank, dtype,
                         artifact.memory_device(spec.device.decode()))
            if artifact.views and view.numel():
                # A result in an argument's memory (the program returns
                # what it was given, or wrote in place) is a view of that
                # tensor, which it keeps alive: the argument may be a copy
                # made for this call.
                start = view.data_ptr()
                view = next((v for v in (_alias_view(
                    torch, tensor, start, list(view.shape),
                    list(view.stride()), dtype) for _, tensor in keep
                    if tensor is not None) if v is not None), view)
            outputs.append(view if artifact.views else
                           view.clone(memory_format=torch.contiguous_format))
        if self.mutated_inputs:
            written = outputs[len(outputs) - len(self.mutated_inputs):]
            outputs = outputs[:len(outputs) - len(self.mutated_inputs)]
            for position, value in zip(self.mutated_inputs, written):
                user = self.user_args.index(position)
                try:
                    values[user].copy_(value)
                except RuntimeError as error:
                    raise GraphError("%s: argument %d cannot be written back "
                                     "(mutated_inputs): %s" % (
                                         self.name, user, error))
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _check_written(self, torch, values):
        """GraphError before the call for an argument the program writes in
        place (mutated_inputs) that eager PyTorch would not write: one whose
        elements share memory, one that requires grad in grad mode (the
        artifact computes no gradients), an inference tensor outside
        inference mode. (The native call path checks the same.)"""
        for position in self.mutated_inputs:
            user = self.user_args.index(position)
            value = values[user]
            which = "%s: argument %d is written in place (mutated_inputs)" \
                % (self.name, user)
            if _overlaps_itself(value):
                raise GraphError("%s, but elements of it share memory (sizes "
                                 "%s, strides %s): pass a tensor of its own "
                                 "(.clone())" % (which, list(value.shape),
                                                 list(value.stride())))
            if value.requires_grad and torch.is_grad_enabled():
                raise GraphError("%s and requires grad: the artifact computes "
                                 "no gradients; call it under "
                                 "torch.no_grad()" % which)
            if value.is_inference() and \
                    not torch.is_inference_mode_enabled():
                raise GraphError("%s and is an inference tensor, written "
                                 "only in inference mode: call it under "
                                 "torch.inference_mode(), or pass a clone"
                                 % which)


class Artifact:
    """A loaded artifact; calling it calls its first entry."""

    def __init__(self, path, backend=None, device=-1, parameters=None,
                 module=None, runtime_library=None, mutated_inputs=None,
                 views=False, debug_overwrite=False, weights=None):
        import torch
        self.handle = None
        self._stale, self._module, self._bound = False, None, {}
        self._tracked, self._watch, self._identity_checks = [], None, False
        # Gradients: artifacts compute none; warned once (see
        # _warn_gradients).
        self._grad_warned, self._grad_enabled = False, torch.is_grad_enabled
        if not isinstance(path, (str, os.PathLike)):
            raise GraphError("load: the artifact's path must be a str or "
                             "os.PathLike, got %s" % type(path).__name__)
        path = os.fspath(path)
        if not isinstance(path, str):
            raise GraphError("load: the artifact's path must be text, got %s"
                             % type(path).__name__)
        if device is None:
            device = -1
        if not isinstance(device, int) or isinstance(device, bool) or \
                not -1 <= device < 2 ** 31:
            raise GraphError("load: device must be -1 (the program's own) or "
                             "a CUDA device index, got %r" % (device,))
        self.path = path
        # dlopen reads a name without a slash as a library's, not as a file
        # of the working directory.
        opened = os.path.abspath(path).encode()
        self.lib = _runtime(runtime_library)
        self.views, self.device = views, device
        inspected = ctypes.c_void_p()
        self.check(self.lib.gpRtArtifactInspect(opened,
                                                ctypes.byref(inspected)),
                   "load " + path)
        self.target = self.lib.gpRtArtifactTarget(inspected).decode()
        self.lib.gpRtArtifactUnload(inspected)
        backend = backend or self.target
        if backend not in ("host", "cuda"):
            raise GraphError("backend must be host or cuda, got %r" % backend)
        handle = ctypes.c_void_p()
        self.check(self.lib.gpRtArtifactLoad(
            opened, 0 if backend == "host" else 1, device,
            ctypes.byref(handle)), "load " + path)
        self.handle = handle
        self.program = ctypes.c_void_p()
        self.check(self.lib.gpRtArtifactGetProgram(
            self.handle, ctypes.byref(self.program)), "load " + path)
        if debug_overwrite:
            self.check(self.lib.gpRtArtifactSetDebugOverwrite(self.handle, 1),
                       "load " + path)
        self.parameters = {}
        for index in range(self.lib.gpRtArtifactNumParameters(self.handle)):
            info = _ParameterInfo()
            self.check(self.lib.gpRtArtifactGetParameter(
                self.handle, index, ctypes.byref(info)), "load " + path)
            # Bound already at load: state the runtime keeps itself (the
            # index-error flag of a converted program), never the caller's.
            if info.bound:
                continue
            parameter = _Parameter(info)
            self.parameters[parameter.name] = parameter
        self.entries = {}
        count = self.lib.gpRtArtifactNumEntries(self.handle)
        if not isinstance(mutated_inputs, (list, tuple, dict, type(None))):
            raise GraphError("mutated_inputs must be a list of argument "
                             "positions (or a dict of entry names to lists), "
                             "got %s" % type(mutated_inputs).__name__)
        if isinstance(mutated_inputs, dict) and any(
                not isinstance(v, (list, tuple))
                for v in mutated_inputs.values()):
            raise GraphError("mutated_inputs: each entry's value must be a "
                             "list of argument positions")
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
        named = [p.device for p in self.parameters.values()] + [
            a.device.decode() for e in self.entries.values()
            for a in e.args + e.results if a.isBuffer]
        self._device_index = device if device >= 0 else next(
            (int(d.partition(":")[2] or 0) for d in named
             if d.startswith("cuda")), 0)
        if self.target == "cuda":
            index = self.device_index()
            raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
            self._stream = (lambda: raw(index)) if raw else \
                (lambda: torch.cuda.current_stream(index).cuda_stream)
        else:
            self._stream = lambda: 0
        native = _native()
        self.native = native is not None
        if native is not None:
            self._watch = native.BoundTensors()
        if weights is not None:
            self._bind_weights(weights)
            if self.parameters:
                parameters = [parameters, weights] if parameters is not \
                    None else weights
        self.bind(parameters=parameters, module=module)
        if native is not None:
            functions = {key: ctypes.cast(getattr(self.lib, symbol),
                                          ctypes.c_void_p).value
                         for key, symbol in (
                             ("call_on_stream",
                              "gpRtArtifactCallOnStreamChecked"),
                             ("call", "gpRtArtifactCallChecked"),
                             ("last_error", "gpRtGetLastError"),
                             ("synchronize", "gpRtProgramSynchronize"))}
            for entry in self.entries.values():
                entry._use_native(native, functions)

    # -- parameters ---------------------------------------------------------
    def _bind_weights(self, directory):
        """`directory` (gp-compile --weights DIR): read by name for a
        program that names its weights (bind), else by position: each
        entry's trailing weight arguments from the .npy files that
        DIR/<entry>.weights lists, one a line, as gp-run --weights reads
        them. A directory that is missing, or gives a program without
        parameters no weights, is an error naming it."""
        if not os.path.isdir(directory):
            raise GraphError("load: weights directory '%s' %s" % (
                directory, "is not a directory" if os.path.exists(directory)
                else "does not exist"))
        if self.parameters:
            return
        bound = 0
        for entry in self.entries.values():
            listing = os.path.join(directory, entry.name + ".weights")
            if not os.path.isfile(listing):
                continue
            try:
                with open(listing) as f:
                    files = [line.strip() for line in f if line.strip()]
            except (OSError, UnicodeDecodeError) as error:
                raise GraphError("load: cannot read %s: %s" % (listing,
                                                               error))
            if len(files) > len(entry.user_args):
                raise GraphError("load: %s lists %d weight(s), but entry "
                                 "'%s' takes %d argument(s)" % (
                                     listing, len(files), entry.name,
                                     len(entry.user_args)))
            positions = entry.user_args[len(entry.user_args) - len(files):]
            weights = []
            for position, file in zip(positions, files):
                spec = _WeightArgument(entry, position, file)
                try:
                    if spec.element is None:
                        raise GraphError("the argument is an index, not a "
                                         "weight")
                    array = _read_npy(os.path.join(directory, file), file)
                    tensor = self._owned(spec, array)
                    self._check_fits(spec, tensor)
                except GraphError as error:
                    raise GraphError("load: %s: entry '%s' argument %d: %s"
                                     % (listing, entry.name, position,
                                        error))
                weights.append(tensor)
            entry.weights, entry.weights_dir = tuple(weights), directory
            bound += len(weights)
        if not bound:
            raise GraphError(
                "load: weights directory '%s' gives the program nothing: it "
                "takes no named parameters, and there is no %s listing an "
                "entry's weights by position (entries: %s)" % (
                    directory, " or ".join(
                        "'%s.weights'" % e for e in self.entries),
                    ", ".join("%s, %d argument(s)" % (e.name,
                                                       len(e.user_args))
                              for e in self.entries.values())))

    def _warn_gradients(self, values):
        """Warns, once per artifact, when a call would need gradients that
        the artifact does not compute: grad mode is on and an argument
        requires grad, or the bound module is in training mode with
        parameters that require grad. The results never require grad, so a
        backward through them fails later; the warning says why now."""
        why = next(("argument %d requires grad" % i
                    for i, v in enumerate(values)
                    if getattr(v, "requires_grad", False)), None)
        module = self._module
        if why is None and module is not None and module.training:
            why = next(("the module is in training mode and its parameter "
                        "'%s' requires grad" % name
                        for name, _, _, t in self._tracked
                        if t.requires_grad), None)
        if why is None:
            return
        self._grad_warned = True
        warnings.warn(
            "graphpart: %s computes no gradients (the artifact is inference "
            "only): %s with grad mode on, but its results will not require "
            "grad and backward() cannot reach the inputs or parameters. Call "
            "it under torch.no_grad() or torch.inference_mode() (and "
            "module.eval()) to silence this; train with PyTorch itself. "
            "(Warned once per artifact.)" % (os.path.basename(self.path),
                                             why), stacklevel=4)

    def bind(self, parameters=None, module=None):
        """Binds every parameter the program takes (see the module
        comment): from `parameters` (a state dict, a .safetensors file, a
        directory of NAME.npy, or a list of these) and, for the names they
        lack, from `module`'s own tensors without a copy. Raises GraphError
        naming the parameters missing or unfit; on an error nothing is
        bound anew."""
        import torch
        names = list(self.parameters)
        given = _read_sources(parameters, set(names))
        found = _module_tensors(module) if module is not None else {}
        missing = [n for n in names if n not in given and n not in found]
        if missing:
            raise GraphError(
                "load: %d parameter(s) of the program not given: %s%s; pass "
                "module= (the module it was captured from) or parameters= "
                "(a state dict, .safetensors file or directory)%s" % (
                    len(missing), ", ".join(missing[:8]),
                    ", ..." if len(missing) > 8 else "",
                    _searched(parameters)))
        bound, tracked = {}, []
        for name in names:
            parameter = self.parameters[name]
            if name in given:
                tensor = self._owned(parameter, given[name])
            else:
                holder, key = found[name]
                tensor = holder[key]
                tracked.append((name, holder, key, tensor))
            self._check_fits(parameter, tensor)
            bound[name] = tensor
        for name, tensor in bound.items():
            self._bind_one(self.parameters[name], tensor)
        self._bound, self._tracked, self._module = bound, tracked, module
        self._pointers = [t.data_ptr() for _, _, _, t in tracked]
        if self._watch is not None:
            self._watch.set([t for _, _, _, t in tracked])
        self._stale = False
        if tracked:
            _WATCHING.add(self)
            self._identity_checks = not _watch_registrations(torch)
        else:
            _WATCHING.discard(self)
        # Per call: whether a bound module tensor moved (its data pointer,
        # in C++ where it can) or, without registration hooks, was replaced.
        if not tracked:
            self._moved = lambda: False
        elif self._watch is not None and not self._identity_checks:
            self._moved = lambda: self._watch.moved() >= 0
        else:
            self._moved = self._moved_python

    def _owned(self, parameter, value):
        """A value read from a file or state dict, as a tensor of the
        program's memory (copied once)."""
        import torch
        if isinstance(value, tuple):  # (numpy array, element) from a file
            array, element = value
            if element != parameter.element:
                raise GraphError("parameter '%s' is %s in the file; the "
                                 "program takes %s" % (parameter.name,
                                                       element,
                                                       parameter.element))
            # A copy: arrays read from files may be read-only.
            array = np.array(array, order="C")
            if element == "bf16":
                tensor = torch.from_numpy(array.view(np.int16)).view(
                    torch.bfloat16)
            else:
                tensor = torch.from_numpy(array)
        elif isinstance(value, np.ndarray):
            if str(value.dtype.newbyteorder("=")) not in _NUMPY_TYPES:
                raise GraphError("parameter '%s': a numpy array of %s, which "
                                 "no parameter takes" % (parameter.name,
                                                         value.dtype))
            # A copy, row-major, in this machine's byte order.
            tensor = torch.from_numpy(np.array(
                value, dtype=value.dtype.newbyteorder("="), order="C"))
        elif isinstance(value, torch.Tensor):
            unusual = _unusual(torch, value)
            if unusual:
                raise GraphError("parameter '%s' is %s" % (parameter.name,
                                                            unusual))
            _check_memory(value, "parameter '%s'" % parameter.name)
            tensor = _as_read(value.detach())
        else:
            raise GraphError("parameter '%s': %r is not a tensor"
                             % (parameter.name, type(value).__name__))
        target = self.memory_device(parameter.device)
        if tensor.device.type == "meta":
            return tensor
        copy = tensor.to(target).contiguous()
        # The program keeps its own copy: a later change to the given
        # tensor is not seen (bind module= for that).
        return copy.clone() if copy.data_ptr() == tensor.data_ptr() else copy

    def _check_fits(self, parameter, tensor):
        import torch
        name = parameter.name
        unusual = _unusual(torch, tensor)
        if unusual:
            raise GraphError("parameter '%s' is %s" % (name, unusual))
        wanted = getattr(torch, _TORCH_DTYPES.get(parameter.element, ""),
                         None)
        if tensor.dtype != wanted:
            raise GraphError("parameter '%s' is %s; the program takes %s"
                             % (name, tensor.dtype, parameter.element))
        if tensor.dim() != len(parameter.shape) or any(
                s >= 0 and s != d for s, d in zip(parameter.shape,
                                                  tensor.shape)):
            raise GraphError("parameter '%s' has shape %s; the program takes "
                             "%s" % (name, list(tensor.shape),
                                     ["?" if s < 0 else s
                                      for s in parameter.shape]))
        if tensor.is_meta:
            raise GraphError("parameter '%s' is a meta tensor, which holds no "
                             "data" % name)
        where = self.memory_device(parameter.device)
        if str(tensor.device) != where and not (
                where == "cpu" and tensor.device.type == "cpu"):
            raise GraphError("parameter '%s' is on %s; the program reads it "
                             "on %s" % (name, tensor.device, where))
        if not tensor.is_contiguous():
            raise GraphError("parameter '%s' is not contiguous (strides %s): "
                             "the program reads it in place, row-major"
                             % (name, list(tensor.stride())))
        if tensor.is_neg() or tensor.is_conj():
            raise GraphError("parameter '%s' is a %s view, whose memory holds "
                             "other values than it shows: the program reads "
                             "it in place (pass .resolve_neg())" % (
                                 name, "negated" if tensor.is_neg()
                                 else "conjugated"))
        _check_memory(tensor, "parameter '%s'" % name)

    def _bind_one(self, parameter, tensor):
        words = [tensor.data_ptr(), tensor.data_ptr(), 0]
        words += list(tensor.shape) + list(tensor.stride())
        descriptor = (ctypes.c_int64 * len(words))(*words)
        self.check(self.lib.gpRtArtifactBindParameter(
            self.handle, parameter.name.encode(), parameter.element.encode(),
            descriptor), "bind parameter '%s'" % parameter.name)

    def _moved_python(self):
        if any(t.data_ptr() != p for (_, _, _, t), p in
               zip(self._tracked, self._pointers)):
            return True
        return self._identity_checks and any(
            holder.get(key) is not t for _, holder, key, t in self._tracked)

    def _refresh(self):
        """Binds the module's tensors again where they were replaced or
        moved; a tensor that no longer fits fails, naming it."""
        if self._module is None:
            self._stale = False
            return
        found = _module_tensors(self._module)
        tracked, changed = [], []
        for name, holder, key, old in self._tracked:
            if name not in found:
                raise GraphError("parameter '%s' is no longer in the module"
                                 % name)
            holder, key = found[name]
            tensor = holder[key]
            self._check_fits(self.parameters[name], tensor)
            tracked.append((name, holder, key, tensor))
            if tensor is not old or tensor.data_ptr() != old.data_ptr() or \
                    tensor.data_ptr() != self._pointers[len(tracked) - 1]:
                changed.append((name, tensor))
        for name, tensor in changed:
            self._bind_one(self.parameters[name], tensor)
            self._bound[name] = tensor
        self._tracked = tracked
        self._pointers = [t.data_ptr() for _, _, _, t in tracked]
        if self._watch is not None:
            self._watch.set([t for _, _, _, t in tracked])
        self._stale = False

    # -----------------------------------------------------------------------
    def device_index(self):
        """The cuda device the program runs on: the one given at load, else
        the first its buffers name."""
        return self._device_index

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

    def __call__(self, *values, **keywords):
        if not self.entries:
            raise GraphError("%s has no entry" % self.path)
        return next(iter(self.entries.values()))(*values, **keywords)

    def close(self):
        if self.handle:
            _WATCHING.discard(self)
            self.lib.gpRtArtifactUnload(self.handle)
            self.handle = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class _WeightArgument:
    """A weight argument bound by position, described as _Parameter
    describes a named one."""

    def __init__(self, entry, position, file):
        spec = entry.args[position]
        self.name = file
        self.element = spec.elementType.decode() if spec.isBuffer else None
        self.shape = [spec.shape[i] for i in range(spec.rank)] \
            if spec.isBuffer else []
        self.device = spec.device.decode() if spec.isBuffer else ""


def _searched(sources):
    """The parameter sources that were read, for a message: "" when none
    were given."""
    if sources is None:
        return ""
    if not isinstance(sources, (list, tuple)):
        sources = [sources]
    described = []
    for source in sources:
        if isinstance(source, dict):
            described.append("a state dict of %d tensor(s)" % len(source))
        elif isinstance(source, (str, os.PathLike)):
            path = os.fspath(source)
            described.append("'%s'%s" % (path, " (NAME.npy)" if
                                         os.path.isdir(path) else ""))
    return "; looked in %s" % ", ".join(described) if described else ""


def _read_sources(sources, names):
    """name -> value (a tensor, a numpy array, or (array, element) from a
    file) for each of `names` the sources hold, the first source winning."""
    if sources is None:
        return {}
    if not isinstance(sources, (list, tuple)):
        sources = [sources]
    found = {}
    for source in sources:
        wanted = names - set(found)
        if isinstance(source, dict):
            found.update({n: source[n] for n in wanted if n in source})
        elif isinstance(source, (str, os.PathLike)):
            path = os.fspath(source)
            if os.path.isdir(path):
                for name in wanted:
                    file = os.path.join(path, name + ".npy")
                    if os.path.exists(file):
                        found[name] = _read_npy(file, name)
            elif os.path.isfile(path):
                found.update(read_safetensors(path, wanted))
            else:
                raise GraphError("parameters: '%s' is neither a directory nor "
                                 "a .safetensors file" % path)
        else:
            raise GraphError("parameters: %r is not a state dict, a path or a "
                             "list of them" % type(source).__name__)
    return found


def _read_npy(path, name):
    try:
        array = read_npy(path)
    except GraphError as error:
        raise GraphError("parameter '%s': %s" % (name, error))
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    element = STORED_ELEMENTS.get(str(array.dtype))
    if element is None:
        raise GraphError("parameter '%s': %s holds %s, which no parameter "
                         "takes" % (name, path, array.dtype))
    return array, element


def load(path, backend=None, device=-1, parameters=None, module=None,
         weights=None, runtime_library=None, mutated_inputs=None,
         views=False, debug_overwrite=False):
    """Loads the artifact gp-compile made at `path` and binds its
    parameters (see the module comment): from `module`, the live module it
    was captured from (no copy; updates in place are seen), or from
    `parameters` (a state dict, .safetensors file, directory of NAME.npy,
    or a list of them); `weights` is the directory gp-compile --weights
    wrote, read as `parameters`. `mutated_inputs` lists the argument
    positions whose final values are the trailing results (a list for a
    one-entry artifact, else a dict from entry name to list). `views=True`
    returns results as views of the program's memory, without copies,
    valid until the entry runs again; `debug_overwrite=True` makes a later
    call poison the views it overwrites (NaN, -1) rather than show its own
    values, to find reads of stale views."""
    if weights is not None:
        weights = os.fspath(weights)
        if not os.path.isdir(weights):
            # Checked before anything is loaded.
            raise GraphError("load: weights directory '%s' %s" % (
                weights, "is not a directory" if os.path.exists(weights)
                else "does not exist"))
    return Artifact(path, backend, device, parameters, module,
                    runtime_library, mutated_inputs, views, debug_overwrite,
                    weights)
