"""GraphPart from Python: capture PyTorch programs (torch_capture.py, needs
torch), convert them to MLIR without torch (convert.py), read and write the
serialized graphs (format.py)."""
from .format import GraphError, load, save  # noqa: F401
from .convert import convert  # noqa: F401
from .runtime import load  # noqa: F401


def capture(fn, example_inputs, directory, name=None):
    """Traces `fn` with PyTorch and saves its graph (torch_capture.py)."""
    from .torch_capture import capture as run
    return run(fn, example_inputs, directory, name)
