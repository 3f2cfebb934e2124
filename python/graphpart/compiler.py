"""graphpart.compile: capture, convert, gp-compile and load in one call,
where the compiler tools are installed.

    model = graphpart.compile(module, [torch.randn(4, 32)], target="host")
    y = model(x)
"""
import os
import shutil
import subprocess
import tempfile

from .convert import convert_program
from .externs import register_extern
from .format import GraphError, load as load_graph
from .runtime import load


def _tool(name, given):
    path = given or os.environ.get("GRAPHPART_" + name.upper().replace(
        "-", "_")) or shutil.which(name)
    if not path:
        raise GraphError("cannot find %s: put it on PATH, set GRAPHPART_%s "
                         "or pass it" % (name, name.upper().replace("-", "_")))
    return path


def compile(fn, example_inputs, target="cuda", name=None, work_dir=None,
            pipeline_options="", gp_compile=None, runtime_library=None,
            externs=None):
    """Captures `fn(*example_inputs)`, converts it, compiles it for
    `target` (host or cuda) and loads it. The intermediate files stay in
    `work_dir` when one is given (else a temporary directory, removed).
    Inputs `fn` writes in place are written by the compiled call too.

    The custom ops `fn` calls run as Python externs (externs.py), capturable
    unless tagged cudagraph_unsafe: each its torch op, or the function
    `externs` maps its name to; `externs=False` registers none (the caller
    registered them, or loaded an extern library)."""
    from .torch_capture import capture
    if target not in ("host", "cuda"):
        raise GraphError("target must be host or cuda, got %r" % target)
    compiler = _tool("gp-compile", gp_compile)
    keep = work_dir is not None
    work = work_dir or tempfile.mkdtemp(prefix="graphpart-")
    os.makedirs(work, exist_ok=True)
    try:
        graph_dir = os.path.join(work, "graph")
        graph = capture(fn, example_inputs, graph_dir, name)
        program = os.path.join(work, graph["name"] + ".mlir")
        graph, constants = load_graph(graph_dir)
        # cuda:0 on both targets: the host backend runs a program's cuda
        # buffers in host memory, captured like on the GPU.
        text, mutated_inputs = convert_program(graph, constants, "cuda:0")
        with open(program, "w") as f:
            f.write(text)
        if externs is not False:
            for op, schema in graph.get("custom_ops", {}).items():
                given = (externs or {}).get(op)
                register_extern(op, given, capturable="cudagraph_unsafe"
                                not in schema.get("tags", []),
                                mutates=None if given is None else ",".join(
                                    map(str, schema.get("mutates", []))),
                                runtime_library=runtime_library)
        artifact = os.path.join(work, graph["name"] + ".so")
        weights = os.path.join(work, "weights")
        command = [compiler, program, "--bufferize", "--target", target,
                   "--weights", weights, "-o", artifact]
        if pipeline_options:
            command += ["-p", pipeline_options]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise GraphError("gp-compile failed:\n" + done.stderr)
        return load(artifact, backend=target, weights=weights,
                    runtime_library=runtime_library,
                    mutated_inputs=mutated_inputs)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
