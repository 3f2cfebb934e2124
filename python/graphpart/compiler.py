"""graphpart.compile: capture, convert, gp-compile and load in one call,
where the compiler tools are installed.

    model = graphpart.compile(module, [torch.randn(4, 32)], target="host")
    y = model(x)

`build(graph_dir, out_dir, target)` is the part without torch: a saved
graph to a loadable artifact, its weights and what `load` needs to know
(build.json), as the Dynamo backend's cache (dynamo.py) uses it.
"""
import json
import os
import shutil
import subprocess
import tempfile

from .convert import convert_program
from .externs import register_extern
from .format import GraphError, load as load_graph
from .runtime import load

BUILD_FILE = "build.json"
# A Dynamo cache entry (dynamo.py): the saved graph and how to build it.
GRAPH_DIR = "graph"
REQUEST_FILE = "request.json"


def _tool(name, given):
    variable = "GRAPHPART_" + name.upper().replace("-", "_")
    path = given or os.environ.get(variable) or shutil.which(name)
    if not path:
        raise GraphError("cannot find %s: put it on PATH, set %s or pass it"
                         % (name, variable))
    if os.sep in path and not os.access(path, os.X_OK):
        raise GraphError("%s '%s' is not an executable file" % (name, path))
    return path


def find_gp_compile(given=None):
    """gp-compile's path (given, $GRAPHPART_GP_COMPILE or PATH), or None."""
    try:
        return _tool("gp-compile", given)
    except GraphError:
        return None


def build(graph_dir, out_dir, target, pipeline_options="", gp_compile=None):
    """Converts the graph saved in `graph_dir` and compiles it for `target`
    into `out_dir`: NAME.mlir, NAME.so, weights/ and build.json (artifact,
    target, the inputs the program writes). Returns build.json's dict."""
    if target not in ("host", "cuda"):
        raise GraphError("target must be host or cuda, got %r" % target)
    compiler = _tool("gp-compile", gp_compile)
    graph, constants = load_graph(graph_dir)
    os.makedirs(out_dir, exist_ok=True)
    # cuda:0 on both targets: the host backend runs a program's cuda
    # buffers in host memory, captured like on the GPU.
    text, mutated_inputs = convert_program(graph, constants, "cuda:0")
    program = os.path.join(out_dir, graph["name"] + ".mlir")
    with open(program, "w") as f:
        f.write(text)
    artifact = os.path.join(out_dir, graph["name"] + ".so")
    weights = os.path.join(out_dir, "weights")
    command = [compiler, program, "--bufferize", "--target", target,
               "--weights", weights, "-o", artifact]
    if pipeline_options:
        command += ["-p", pipeline_options]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise GraphError("gp-compile failed:\n" + done.stderr)
    built = {"artifact": os.path.basename(artifact), "target": target,
             "weights": "weights", "mutated_inputs": list(mutated_inputs),
             "custom_ops": graph.get("custom_ops", {})}
    # Written last: an interrupted build leaves no build.json behind.
    with open(os.path.join(out_dir, BUILD_FILE), "w") as f:
        json.dump(built, f, indent=1)
    return built


def register_custom_ops(custom_ops, externs=None, runtime_library=None):
    """Registers the graph's custom ops as Python externs: each its torch
    op, or the function `externs` maps its name to; capturable unless
    tagged cudagraph_unsafe."""
    for op, schema in custom_ops.items():
        given = (externs or {}).get(op)
        register_extern(op, given, capturable="cudagraph_unsafe"
                        not in schema.get("tags", []),
                        mutates=None if given is None else ",".join(
                            map(str, schema.get("mutates", []))),
                        runtime_library=runtime_library)


def load_built(out_dir, runtime_library=None, externs=None, views=False):
    """Loads what `build` wrote to `out_dir`, custom ops registered first
    (externs=False: none)."""
    with open(os.path.join(out_dir, BUILD_FILE)) as f:
        built = json.load(f)
    if externs is not False:
        register_custom_ops(built.get("custom_ops", {}), externs,
                            runtime_library)
    return load(os.path.join(out_dir, built["artifact"]),
                backend=built["target"],
                weights=os.path.join(out_dir, built["weights"]),
                runtime_library=runtime_library,
                mutated_inputs=built["mutated_inputs"], views=views)


def compile_cache(cache_dir, gp_compile=None, log=None):
    """Builds every saved graph in `cache_dir` that has no artifact yet
    (needs no torch). Returns (built, failed) entry names."""
    compiler = _tool("gp-compile", gp_compile)
    if not os.path.isdir(cache_dir):
        raise GraphError("no cache directory '%s'" % cache_dir)
    built, failed = [], []
    for name in sorted(os.listdir(cache_dir)):
        entry = os.path.join(cache_dir, name)
        request = os.path.join(entry, REQUEST_FILE)
        if not os.path.exists(request) or os.path.exists(
                os.path.join(entry, BUILD_FILE)):
            continue
        with open(request) as f:
            wanted = json.load(f)
        try:
            build(os.path.join(entry, GRAPH_DIR), entry, wanted["target"],
                  wanted.get("pipeline_options", ""), compiler)
            built.append(name)
            if log:
                log("built %s (%s)" % (name, wanted["target"]))
        except GraphError as error:
            failed.append(name)
            if log:
                log("failed %s: %s" % (name, error))
    return built, failed


def compile(fn, example_inputs, target="cuda", name=None, work_dir=None,
            pipeline_options="", gp_compile=None, runtime_library=None,
            externs=None, dynamic=None, method=None):
    """Captures `fn(*example_inputs)`, converts it, compiles it for
    `target` (host or cuda) and loads it. The intermediate files stay in
    `work_dir` when one is given (else a temporary directory, removed).
    Inputs `fn` writes in place are written by the compiled call too.
    `dynamic` maps input positions to their dimensions that are one
    symbolic size, as graphpart.capture takes it (the artifact then runs
    every size in its range); `method` picks the capture ("export" or
    "make_fx").

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
        capture(fn, example_inputs, graph_dir, name, dynamic, method)
        build(graph_dir, work, target, pipeline_options, compiler)
        return load_built(work, runtime_library, externs)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
