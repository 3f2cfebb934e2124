"""The runtime's C ABI as Python sees it through ctypes: its numbers, read
from the library by their C names (Abi), and the ctypes mirrors of its
structs, each checked against the size the library reports for the C
struct when the library loads (check_layouts), so that a runtime library
of another version than this package is a GraphError, not memory read
with the wrong layout. This package holds no copies of the numbers; the
mirrors' fields are the one thing copied from the C headers
(GPRuntimeHost.h, GPRuntimeExtern.h), and the sizes tie them.
"""
import ctypes

from .format import GraphError


class Abi:
    """The C ABI's numbers, read from the runtime library by their C names
    (gpRtGetAbiConstant: abi.GP_RT_BACKEND_CUDA), and its element type
    names (gpRtElementTypeName), so that this package holds no copies."""

    def __init__(self, lib):
        try:
            lib.gpRtGetAbiConstant.restype = ctypes.c_int32
            lib.gpRtElementTypeName.restype = ctypes.c_char_p
        except AttributeError as error:
            raise GraphError("the GraphPart runtime does not export the ABI "
                             "constants (a runtime library of another "
                             "version?): %s" % error)
        lib.gpRtGetAbiConstant.argtypes = [ctypes.c_char_p,
                                           ctypes.POINTER(ctypes.c_int64)]
        lib.gpRtElementTypeName.argtypes = [ctypes.c_int32]
        self._lib = lib
        self._element_names = {}

    def __getattr__(self, name):
        if not name.startswith("GP_RT_"):
            raise AttributeError(name)
        value = ctypes.c_int64()
        if self._lib.gpRtGetAbiConstant(name.encode(), ctypes.byref(value)):
            raise GraphError("the GraphPart runtime does not define %s (%s)"
                             % (name, self._lib.gpRtGetLastError().decode()))
        setattr(self, name, value.value)
        return value.value

    def element_name(self, code):
        """The runtime's name of element type `code` (None when it has
        none), index read as i64: torch has no index type."""
        if code not in self._element_names:
            name = self._lib.gpRtElementTypeName(code)
            name = name.decode() if name else None
            self._element_names[code] = "i64" if name == "index" else name
        return self._element_names[code]


# -- the structs, as GPRuntimeHost.h and GPRuntimeExtern.h declare them -------
class MemRef(ctypes.Structure):
    """gpRtMemRef without its sizes and strides: the three words before
    them in every descriptor this package (and _native.cpp) builds or
    reads as int64 words (allocated, aligned, offset; then rank sizes and
    rank strides)."""
    _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                ("offset", ctypes.c_int64)]


class ValueInfo(ctypes.Structure):
    """gpRtValueInfo: one argument or result of an entry point."""
    _fields_ = [("isBuffer", ctypes.c_int32), ("elementType", ctypes.c_char_p),
                ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("device", ctypes.c_char_p), ("parameter", ctypes.c_char_p)]


class EntryInfo(ctypes.Structure):
    """gpRtEntryInfo: an entry point."""
    _fields_ = [("name", ctypes.c_char_p), ("numArgs", ctypes.c_int32),
                ("args", ctypes.POINTER(ValueInfo)),
                ("numResults", ctypes.c_int32),
                ("results", ctypes.POINTER(ValueInfo))]


class ParameterInfo(ctypes.Structure):
    """gpRtParameterInfo: a named parameter of the program."""
    _fields_ = [("name", ctypes.c_char_p), ("elementType", ctypes.c_char_p),
                ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("device", ctypes.c_char_p), ("bound", ctypes.c_int32)]


class ExternArg(ctypes.Structure):
    """gpRtExternArg: what one argument of an extern call is."""
    _fields_ = [("bytes", ctypes.c_int64), ("kind", ctypes.c_int32),
                ("elementType", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("isResult", ctypes.c_int32)]


# gpRtExternFn.
EXTERN_FN = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p,
                             ctypes.POINTER(ctypes.c_void_p),
                             ctypes.POINTER(ExternArg), ctypes.c_int32)


class ExternSpec(ctypes.Structure):
    """gpRtExternSpec: an extern as it registers."""
    _fields_ = [("abiVersion", ctypes.c_int32), ("flags", ctypes.c_int32),
                ("name", ctypes.c_char_p), ("fn", EXTERN_FN),
                ("mutates", ctypes.c_char_p), ("aliases", ctypes.c_char_p)]


# Each mirror by its C struct's name: the library reports the struct's
# size as the ABI constant GP_RT_SIZEOF_<name>.
MIRRORS = (("gpRtMemRef", MemRef), ("gpRtValueInfo", ValueInfo),
           ("gpRtEntryInfo", EntryInfo),
           ("gpRtParameterInfo", ParameterInfo),
           ("gpRtExternArg", ExternArg), ("gpRtExternSpec", ExternSpec))

# dlopen handles of the libraries whose layouts were checked.
_CHECKED = set()


def layout_errors(lib, mirrors=None):
    """What differs between `mirrors` (by default MIRRORS) and the C
    structs of `lib`, one line each (none when every size agrees)."""
    abi = Abi(lib)
    errors = []
    for c_name, mirror in MIRRORS if mirrors is None else mirrors:
        constant = "GP_RT_SIZEOF_" + c_name
        try:
            size = getattr(abi, constant)
        except GraphError:
            errors.append("it does not report the size of %s (%s)"
                          % (c_name, constant))
            continue
        if size != ctypes.sizeof(mirror):
            errors.append("its %s is %d bytes, graphpart's ctypes mirror "
                          "of it (abi.py) %d" % (c_name, size,
                                                 ctypes.sizeof(mirror)))
    return errors


def check_layouts(lib, path):
    """GraphError when the runtime library `lib` (loaded from `path`)
    lays out a struct this package mirrors otherwise: a library of another
    version. Checked once per library."""
    if lib._handle in _CHECKED:
        return
    errors = layout_errors(lib)
    if errors:
        raise GraphError(
            "the GraphPart runtime '%s' does not match this graphpart "
            "package (a runtime library of another version?): %s; use the "
            "runtime built with this package (runtime_library= or "
            "GRAPHPART_RUNTIME_LIBRARY)" % (path, "; ".join(errors)))
    _CHECKED.add(lib._handle)
