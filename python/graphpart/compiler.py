"""graphpart.compile: capture, convert, gp-compile and load in one call,
where the compiler tools are installed.

    model = graphpart.compile(module, [torch.randn(4, 32)], target="host")
    y = model(x)

`build(graph_dir, out_dir, target)` is the part without torch: a saved
graph to a loadable artifact and what `load` needs to know besides what
the artifact's manifest says (build.json: the inputs the program writes,
the files that hold its parameters' values, its custom ops), as the Dynamo
backend's cache (dynamo.py) uses it. The program's target and parameters
are the manifest's, read from the loaded artifact: build.json does not
repeat them (an older build.json's "target" and "parameters" are read for
their files only). The program's weights are parameters bound at load
(runtime.py), not part of it: a module's from the live module, large
constants from the graph's files.
"""
import json
import os
import shutil
import subprocess
import tempfile

from .convert import convert_program
from .externs import register_extern
from .format import GraphError, load as load_graph, parameter_files
from .runtime import _read_npy, load

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


def build(graph_dir, out_dir, target, pipeline_options="", gp_compile=None,
          fuse_attention=True):
    """Converts the graph saved in `graph_dir` and compiles it for `target`
    into `out_dir`: NAME.mlir, NAME.so and build.json (the artifact's file
    name, the inputs the program writes, "files": each parameter whose
    value was saved, by name, with its kind, "parameter" for a module's
    state or "constant", and its file relative to `out_dir`; the graph's
    custom ops). Returns build.json's dict. `fuse_attention=False` keeps
    attention as written (convert's option of the same name)."""
    if target not in ("host", "cuda"):
        raise GraphError("target must be host or cuda, got %r" % target)
    compiler = _tool("gp-compile", gp_compile)
    graph, constants = load_graph(graph_dir)
    os.makedirs(out_dir, exist_ok=True)
    # cuda:0 on both targets: the host backend runs a program's cuda
    # buffers in host memory, captured like on the GPU.
    text, mutated_inputs, parameters = convert_program(
        graph, constants, "cuda:0", fuse_attention=fuse_attention)
    saved = parameter_files(graph_dir, graph)
    constant_files = {c["name"]: os.path.join(graph_dir, c["file"])
                      for c in graph.get("constants", [])}
    # Only what the manifest lacks: its parameters' names, element types
    # and shapes are the artifact's own.
    files = {}
    for name, _, kind in parameters:
        file = saved.get(name) if kind == "parameter" else \
            constant_files.get(name)
        if file is not None:
            files[name] = {"kind": kind,
                           "file": os.path.relpath(file, out_dir)}
    program = os.path.join(out_dir, graph["name"] + ".mlir")
    with open(program, "w") as f:
        f.write(text)
    artifact = os.path.join(out_dir, graph["name"] + ".so")
    command = [compiler, program, "--bufferize", "--target", target,
               "-o", artifact]
    if pipeline_options:
        command += ["-p", pipeline_options]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise GraphError("gp-compile failed:\n" + done.stderr)
    built = {"artifact": os.path.basename(artifact), "files": files,
             "mutated_inputs": list(mutated_inputs),
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


def load_built(out_dir, runtime_library=None, externs=None, views=False,
               module=None):
    """Loads what `build` wrote to `out_dir`, custom ops registered first
    (externs=False: none), on the target the artifact was compiled for.
    The module's parameters are bound from `module` (without a copy) when
    given, else from the files the capture saved; constants from their
    files."""
    built = _read_build(out_dir)
    if externs is not False:
        register_custom_ops(built.get("custom_ops", {}), externs,
                            runtime_library)
    files = {}
    for name, entry in built["files"].items():
        if module is not None and entry["kind"] == "parameter":
            continue
        path = os.path.join(out_dir, entry["file"])
        files[name] = _read_npy(path, name)
    # The target and the parameters' names are the manifest's (the
    # artifact's own): backend None is its target.
    return load(os.path.join(out_dir, built["artifact"]),
                parameters=files, module=module,
                runtime_library=runtime_library,
                mutated_inputs=built["mutated_inputs"], views=views)


def _read_build(out_dir):
    """build.json of `out_dir`, checked; GraphError naming what is wrong."""
    path = os.path.join(out_dir, BUILD_FILE)
    try:
        with open(path, "rb") as f:
            built = json.loads(f.read().decode("utf-8"))
    except OSError as error:
        raise GraphError("cannot read %s: %s (build() writes it)"
                         % (path, error.strerror or error))
    except (ValueError, RecursionError) as error:
        raise GraphError("%s: not JSON: %s" % (path, error))
    # "files": name -> {kind, file}. A build.json of an older build has
    # "parameters" instead ([{name, kind, file}], file null where none was
    # saved), read for its files only, and a "target", ignored: the
    # artifact's manifest says both.
    old = isinstance(built, dict) and "files" not in built and \
        "parameters" in built
    fields = (("artifact", str), ("parameters", list) if old else
              ("files", dict), ("mutated_inputs", list))
    bad = [key for key, kind in fields if not isinstance(
        built.get(key) if isinstance(built, dict) else None, kind)]
    if bad:
        raise GraphError("%s: no valid %s" % (path, ", ".join(bad)))
    if old:
        for entry in built["parameters"]:
            if not (isinstance(entry, dict) and isinstance(
                    entry.get("name"), str) and
                    entry.get("kind") in ("parameter", "constant") and
                    isinstance(entry.get("file"), (str, type(None)))):
                raise GraphError("%s: parameter entry %s is not {name, "
                                 "kind, file}" % (path,
                                                  json.dumps(entry)[:100]))
        built = dict(built, files={
            e["name"]: {"kind": e["kind"], "file": e["file"]}
            for e in built["parameters"] if e["file"] is not None})
    for name, entry in built["files"].items():
        if not (isinstance(entry, dict) and
                entry.get("kind") in ("parameter", "constant") and
                isinstance(entry.get("file"), str)):
            raise GraphError("%s: files entry '%s' %s is not {kind, file}"
                             % (path, name, json.dumps(entry)[:100]))
    if not isinstance(built.get("custom_ops", {}), dict):
        raise GraphError("%s: custom_ops is not an object" % path)
    return built


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
        try:
            try:
                with open(request) as f:
                    wanted = json.load(f)
            except (OSError, ValueError) as error:
                raise GraphError("cannot read %s: %s" % (request, error))
            if not isinstance(wanted, dict) or not isinstance(
                    wanted.get("pipeline_options", ""), str):
                raise GraphError("%s: not a request of the backend"
                                 % request)
            build(os.path.join(entry, GRAPH_DIR), entry, wanted.get("target"),
                  wanted.get("pipeline_options", ""), compiler)
            built.append(name)
            if log:
                log("built %s (%s)" % (name, wanted.get("target")))
        except GraphError as error:
            failed.append(name)
            if log:
                log("failed %s: %s" % (name, error))
    return built, failed


def _default_target(fn, example_inputs):
    """cuda when the call's data lives on a CUDA device (an example input,
    or a parameter or buffer of a module), else host: as torch.compile
    follows the inputs' device."""
    import torch
    tensors = [v for v in example_inputs if isinstance(v, torch.Tensor)]
    if isinstance(fn, torch.nn.Module):
        tensors += list(fn.parameters()) + list(fn.buffers())
    return "cuda" if any(t.is_cuda for t in tensors) else "host"


def compile(fn, example_inputs, target=None, name=None, work_dir=None,
            pipeline_options="", gp_compile=None, runtime_library=None,
            externs=None, dynamic=None, method=None, views=False,
            fuse_attention=True):
    """Captures `fn(*example_inputs)`, converts it, compiles it for
    `target` ("cuda" or "host": this machine's CPU; by default cuda when
    an example input or a parameter of `fn` is a CUDA tensor, else host) and
    loads it, a module's parameters bound from the module itself (no copy:
    later updates in place are seen). The intermediate files (the graph,
    NAME.mlir, the artifact NAME.so and build.json, NAME being the
    function's or the module class's name, or `name`) stay in `work_dir`
    when one is given, else in a temporary directory, removed.
    Inputs `fn` writes in place are written by the compiled call too.
    Results are fresh tensors; with `views=True` they are views of the
    program's memory, overwritten by the next call (see graphpart.load).
    `dynamic` maps input positions to their dimensions that are one
    symbolic size, as graphpart.capture takes it (the artifact then runs
    every size in its range); `method` picks the capture ("export" or
    "make_fx"); `fuse_attention=False` keeps attention as written instead
    of one fused gp::attention call (docs/PyTorch.md, Attention).

    The custom ops `fn` calls run as Python externs (externs.py), capturable
    unless tagged cudagraph_unsafe: each its torch op, or the function
    `externs` maps its name to; `externs=False` registers none (the caller
    registered them, or loaded an extern library)."""
    from .torch_capture import capture
    if target is None:
        target = _default_target(fn, example_inputs)
    if target not in ("host", "cuda"):
        raise GraphError("target must be host or cuda, got %r" % target)
    compiler = _tool("gp-compile", gp_compile)
    keep = work_dir is not None
    work = work_dir or tempfile.mkdtemp(prefix="graphpart-")
    os.makedirs(work, exist_ok=True)
    try:
        graph_dir = os.path.join(work, "graph")
        import torch
        module = fn if isinstance(fn, torch.nn.Module) else None
        # A module's parameters are bound from the module itself: no copy
        # of them is saved or made.
        capture(fn, example_inputs, graph_dir, name, dynamic, method,
                save_parameters=module is None)
        build(graph_dir, work, target, pipeline_options, compiler,
              fuse_attention)
        return load_built(work, runtime_library, externs, views=views,
                          module=module)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
