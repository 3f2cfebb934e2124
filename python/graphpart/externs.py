"""Custom ops implemented in Python, called by GraphPart programs as
externs.

    graphpart.register_extern("mylib::op1")            # torch.ops.mylib.op1
    graphpart.register_extern("mylib::scale", my_scale, capturable=False)

A registered function is called with one torch tensor per buffer operand
(a view of the program's memory, made without a copy: writing to an
operand the schema says the op mutates writes the program's buffer) and a
Python number per scalar operand, and returns the op's results: a tensor
(or number) or a tuple of them, which are copied into the result buffers
the program allocated (results are fresh: a Python extern's results never
alias its operands).

On the cuda backend the function runs on the program's stream (PyTorch's
current stream is set to it while it runs), so its work is ordered with the
partitions around it without synchronising. A cuda graph cannot capture it
(PyTorch's allocator is not part of GraphPart's capture): the op must be
tagged `cudagraph_unsafe` (register with capturable=False), which makes
gp-partition put it in an eager partition between replayed ones. On the
host backend a capturable Python extern is recorded into the partition's
graph and called again on every replay.

The registration states the op's schema (which operands it writes), taken
from the torch op when no function is given; the runtime compares it, and
the capturability, with what the artifact's IR says when an artifact
loads, and refuses the load on a disagreement, naming the op and both
statements.
"""
import ctypes
import os
import traceback

from .abi import Abi as _Abi, EXTERN_FN as _EXTERN_FN
from .abi import ExternSpec as _ExternSpec
from .elements import TORCH_DTYPES as _TORCH_DTYPES
from .format import GraphError
from .runtime import _runtime, _view


# Registered callbacks stay alive as long as the runtime may call them.
_registered = {}


def _torch_op(name):
    """torch.ops.<ns>.<op>[.<overload>] for "ns::op[.overload]"."""
    import torch
    namespace, _, op = name.partition("::")
    op, _, overload = op.partition(".")
    try:
        packet = getattr(getattr(torch.ops, namespace), op)
        return getattr(packet, overload or "default")
    except (AttributeError, RuntimeError) as error:
        raise GraphError("no torch op '%s' to register (%s): pass the "
                         "function" % (name, error))


def _schema_of(op):
    """(mutates, aliases) in the runtime's terms, from a torch op's schema;
    results that alias an operand are refused."""
    schema = op._schema
    mutates = [str(i) for i, a in enumerate(schema.arguments)
               if a.alias_info is not None and a.alias_info.is_write]
    for position, result in enumerate(schema.returns):
        if result.alias_info is not None:
            raise GraphError("%s: result %d is a view of an operand; a "
                             "Python extern's results are fresh"
                             % (schema.name, position))
    return ",".join(mutates), ",".join("-" for _ in schema.returns)


class _Extern:
    def __init__(self, name, fn, lib):
        self.name, self.fn, self.lib = name, fn, lib
        self.abi = _Abi(lib)

    def __call__(self, stream, args, info, count):
        try:
            return self.call(stream, args, info, count)
        except Exception as error:  # reported through the C ABI
            # The user's function failing: where it raised.
            frames = traceback.extract_tb(error.__traceback__)
            where = " (%s:%d)" % (os.path.basename(frames[-1].filename),
                                  frames[-1].lineno) \
                if frames and not isinstance(error, GraphError) else ""
            status = self.abi.GP_RT_ERROR_INVALID_ARGUMENT if isinstance(
                error, GraphError) else self.abi.GP_RT_ERROR_BACKEND
            message = "Python extern '%s': %s: %s%s" % (
                self.name, type(error).__name__, error, where)
            return self.lib.gpRtSetError(status, message.encode())

    def call(self, stream, args, info, count):
        import torch
        backend = ctypes.c_int32()
        capturing = ctypes.c_int32()
        cuda_stream = ctypes.c_void_p()
        cuda_device = ctypes.c_int32()
        status = self.lib.gpRtStreamGetInfo(
            ctypes.c_void_p(stream), ctypes.byref(backend),
            ctypes.byref(capturing), ctypes.byref(cuda_stream),
            ctypes.byref(cuda_device))
        if status:
            return status
        cuda = backend.value == self.abi.GP_RT_BACKEND_CUDA
        device = "cuda:%d" % cuda_device.value if cuda else "cpu"
        if cuda and capturing.value:
            return self.lib.gpRtSetError(
                self.abi.GP_RT_ERROR_NOT_CAPTURED,
                ("Python extern '%s' cannot be captured into a cuda graph "
                 "(PyTorch's allocator is not part of the capture): tag the "
                 "op cudagraph_unsafe and register it with capturable=False"
                 % self.name).encode())
        operands, results = [], []
        for i in range(count):
            arg = info[i]
            element = self.abi.element_name(arg.elementType)
            if element not in _TORCH_DTYPES:
                raise GraphError("argument %d has element type %s, which "
                                 "Python externs do not take"
                                 % (i, element or arg.elementType))
            dtype = getattr(torch, _TORCH_DTYPES[element])
            if arg.kind == self.abi.GP_RT_EXTERN_ARG_BUFFER:
                value = (args[i], arg.rank, dtype)
                if not arg.isResult:
                    value = _view(torch, args[i], arg.rank, dtype, device)
            else:
                if arg.isResult:
                    value = (args[i], None, dtype)
                elif element in ("f32", "f64"):
                    value = ctypes.cast(args[i], ctypes.POINTER(
                        ctypes.c_float if element == "f32" else
                        ctypes.c_double))[0]
                else:
                    value = ctypes.cast(
                        args[i], ctypes.POINTER(ctypes.c_int64))[0]
                    value = bool(value) if element == "i1" else value
            (results if arg.isResult else operands).append(value)
        if cuda:
            side = torch.cuda.ExternalStream(cuda_stream.value or 0,
                                             device=device)
            with torch.cuda.device(device), torch.cuda.stream(side):
                self.run(torch, stream, operands, results, device)
        else:
            self.run(torch, stream, operands, results, device)
        return 0

    def run(self, torch, stream, operands, results, device):
        with torch.no_grad():
            returned = self.fn(*operands)
        if not isinstance(returned, (tuple, list)):
            returned = () if returned is None else (returned,)
        if len(returned) != len(results):
            raise GraphError("returned %d value(s); the op has %d result(s)"
                             % (len(returned), len(results)))
        for position, (value, (address, rank, dtype)) in enumerate(
                zip(returned, results)):
            if rank is None:
                kind = ctypes.c_double if dtype == torch.float64 else \
                    ctypes.c_float if dtype.is_floating_point else \
                    ctypes.c_int64
                ctypes.cast(address, ctypes.POINTER(kind))[0] = \
                    value.item() if isinstance(value, torch.Tensor) \
                    else value
                continue
            if not isinstance(value, torch.Tensor):
                raise GraphError("result %d is %s, not a tensor"
                                 % (position, type(value).__name__))
            if value.dtype != dtype or value.dim() != rank:
                raise GraphError("result %d is %s of rank %d; the program "
                                 "takes %s of rank %d" % (
                                     position, value.dtype, value.dim(),
                                     dtype, rank))
            words = ctypes.cast(address, ctypes.POINTER(ctypes.c_int64))
            if not words[0]:
                self.allocate(stream, words, value)
            target = _view(torch, address, rank, dtype, device)
            if list(target.shape) != list(value.shape):
                raise GraphError("result %d has shape %s; the program "
                                 "takes %s" % (position, list(value.shape),
                                               list(target.shape)))
            if value.device != target.device:
                raise GraphError("result %d is on %s; the program's buffer "
                                 "is on %s" % (position, value.device,
                                               target.device))
            target.copy_(value)

    def allocate(self, stream, words, value):
        """A result whose size the compiler did not know: row-major memory
        from the runtime, as the descriptor then says."""
        memory = ctypes.c_void_p()
        bytes_ = max(1, value.numel() * value.element_size())
        status = self.lib.gpRtAllocate(ctypes.c_void_p(stream),
                                       ctypes.c_int64(bytes_),
                                       ctypes.byref(memory))
        if status:
            raise GraphError("allocating result memory: %s"
                             % self.lib.gpRtGetLastError().decode())
        rank = value.dim()
        words[0] = words[1] = memory.value
        words[2] = 0
        stride = 1
        for d in reversed(range(rank)):
            words[3 + d] = value.shape[d]
            words[3 + rank + d] = stride
            stride *= value.shape[d]


def register_extern(name, fn=None, capturable=False, mutates=None,
                    aliases=None, runtime_library=None):
    """Registers `fn` (by default the torch op `name` names) as the extern
    for the custom op `name` ("ns::op" or "ns::op.overload"); see the
    module comment. `mutates` ("0,2") and `aliases` ("-,-") state the
    schema; without `fn` they come from the torch op's schema, and given a
    function and neither, the schema is not stated (not compared at load).
    Registering a name again replaces the earlier registration."""
    if fn is None:
        op = _torch_op(name)
        stated = _schema_of(op)
        mutates = stated[0] if mutates is None else mutates
        aliases = stated[1] if aliases is None else aliases
        fn = op
    if not callable(fn):
        raise GraphError("register_extern: %r is not callable" % (fn,))
    lib = _runtime(runtime_library)
    lib.gpRtSetError.restype = ctypes.c_int32
    lib.gpRtSetError.argtypes = [ctypes.c_int32, ctypes.c_char_p]
    extern = _Extern(name, fn, lib)
    callback = _EXTERN_FN(extern)
    abi = extern.abi
    spec = _ExternSpec(abi.GP_RT_EXTERN_ABI_VERSION,
                       abi.GP_RT_EXTERN_CAPTURABLE if capturable else 0,
                       name.encode(), callback,
                       None if mutates is None else mutates.encode(),
                       None if aliases is None else aliases.encode())
    if lib.gpRtRegisterExtern(ctypes.byref(spec)) != 0:
        raise GraphError("register_extern %s: %s"
                         % (name, lib.gpRtGetLastError().decode()))
    _registered[name] = callback


def load_extern_library(path, runtime_library=None):
    """Loads a shared library of externs written in C or C++ (what
    `gp-run --extern-lib` loads; see GPRuntimeExtern.h, gpRtLoadExternLibrary)."""
    lib = _runtime(runtime_library)
    if lib.gpRtLoadExternLibrary(path.encode()) != 0:
        raise GraphError("load_extern_library %s: %s"
                         % (path, lib.gpRtGetLastError().decode()))
