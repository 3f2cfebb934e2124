"""GraphPart from Python: capture PyTorch programs (torch_capture.py, needs
torch), convert them to MLIR without torch (convert.py), read and write the
serialized graphs (format.py: load_graph, save_graph), run artifacts on
torch tensors (runtime.py: load), register custom ops written in Python
as externs (externs.py: register_extern), do it all in one call
(compiler.py: compile), read and write parameter files
(parameters.py: read_safetensors, write_safetensors), and serve as a torch.compile backend (dynamo.py:
graphpart.dynamo.register(), then backend="graphpart")."""
from .format import GraphError, load as load_graph, save as save_graph  # noqa: F401
from .convert import convert  # noqa: F401
from .runtime import load  # noqa: F401
from .externs import load_extern_library, register_extern  # noqa: F401
from .compiler import compile  # noqa: F401,A001
from .parameters import read_safetensors, write_safetensors  # noqa: F401


def capture(fn, example_inputs, directory, name=None, dynamic=None,
            method=None, save_parameters=True):
    """Traces `fn` with PyTorch (torch.export or make_fx) and saves its
    graph (torch_capture.py); a module's parameters are the graph's named
    parameters, their values saved unless `save_parameters` is false."""
    from .torch_capture import capture as run
    return run(fn, example_inputs, directory, name, dynamic, method,
               save_parameters)
