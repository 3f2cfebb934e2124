"""GraphPart as a torch.compile backend:

    import graphpart.dynamo
    graphpart.dynamo.register()  # not needed once the package is installed
    fn = torch.compile(fn, backend="graphpart",
                       options={"target": "cuda", "cache_dir": "gp-cache"})

Each graph Dynamo hands over is specialized on the first call with a new
signature (input shapes, dtypes, devices and the values of its int
inputs): that call runs the graph eagerly, as PyTorch would, while a copy
of its inputs is captured with make_fx and saved; the graph is then
compiled with gp-compile and later calls replay the artifact.

Artifacts live in a cache (`cache_dir`, else $GRAPHPART_CACHE_DIR, else
~/.cache/graphpart), one directory per graph and target, named by a hash of
the saved graph. A machine without the compiler tools (the GPU machine of
docs/PyTorch.md) saves the graphs there and keeps running them eagerly;
`python3 -m graphpart compile-cache DIR` on a machine with the tools
compiles every saved graph, and with the cache brought back the same
program replays the artifacts. Options:

  target          "cuda" or "host" (default: cuda when an input is a CUDA
                  tensor, else host)
  cache_dir       as above
  compile         "auto" (compile where gp-compile is found), True, False
  missing         what a graph without an artifact does when it cannot be
                  compiled here: "eager" (default, with one warning) or
                  "error"
  gp_compile, runtime_library, pipeline_options, views: as for
                  graphpart.compile / graphpart.load

`backend.stats` counts, per graph, the calls that replayed an artifact and
the calls that ran eagerly.
"""
import hashlib
import json
import os
import shutil
import tempfile
import warnings

from .compiler import (BUILD_FILE, GRAPH_DIR, REQUEST_FILE, build,
                       find_gp_compile, load_built)
from .format import GraphError

_OPTIONS = {"target", "cache_dir", "compile", "missing", "gp_compile",
            "runtime_library", "pipeline_options", "views"}


def default_cache_dir():
    return os.environ.get("GRAPHPART_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "graphpart")


def _digest(graph_dir, target, pipeline_options):
    """A name for a saved graph: its files and how it is to be built."""
    digest = hashlib.sha256()
    digest.update(("%s\0%s\0" % (target, pipeline_options)).encode())
    for root, dirs, files in os.walk(graph_dir):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            digest.update(os.path.relpath(path, graph_dir).encode() + b"\0")
            with open(path, "rb") as f:
                digest.update(f.read())
    return digest.hexdigest()[:24]


def _signature(args):
    import torch
    parts = []
    for value in args:
        if isinstance(value, torch.Tensor):
            parts.append(("tensor", tuple(value.shape), str(value.dtype),
                          str(value.device)))
        elif isinstance(value, (bool, int, float)):
            parts.append((type(value).__name__, value))
        else:
            return None
    return tuple(parts)


def _needs_gradients(args):
    import torch
    return torch.is_grad_enabled() and any(
        isinstance(a, torch.Tensor) and a.requires_grad for a in args)


class CompiledGraph:
    """The callable the backend returns for one Dynamo graph."""

    def __init__(self, gm, options, stats):
        self.gm, self.options = gm, options
        self.specializations = {}
        self.stats = stats.setdefault(
            "graph%d" % len(stats), {"replayed": 0, "eager": 0,
                                     "compiled": 0, "loaded": 0,
                                     "saved": 0})
        self.warned_gradients = False

    def __call__(self, *args):
        signature = _signature(args)
        if signature is None:
            # Inputs Dynamo passes that are neither tensors nor numbers.
            self.stats["eager"] += 1
            return self.gm(*args)
        if _needs_gradients(args):
            # An artifact's results have no autograd history: a graph
            # whose results need gradients (training) runs eagerly.
            if not self.warned_gradients:
                warnings.warn("graphpart backend: this graph's inputs "
                              "require gradients; artifacts compute no "
                              "gradients, so it runs eagerly (call it "
                              "under torch.no_grad() or "
                              "torch.inference_mode() to replay it)")
                self.warned_gradients = True
            self.stats["eager"] += 1
            return self.gm(*args)
        special = self.specializations.get(signature)
        if special is None:
            special, result = self._specialize(args)
            self.specializations[signature] = special
            self.stats["eager"] += 1
            return result
        if special.artifact is None:
            self.stats["eager"] += 1
            return self.gm(*args)
        self.stats["replayed"] += 1
        return special(args)

    def _specialize(self, args):
        """Saves the graph for these inputs, builds or finds its artifact,
        and runs this call eagerly."""
        import torch
        from torch.utils import _pytree as pytree
        from .torch_capture import capture
        # make_fx runs the program: on copies, so the inputs it writes are
        # written once, by the eager call below.
        copies = [a.clone() if isinstance(a, torch.Tensor) else a
                  for a in args]
        result = self.gm(*args)
        flat, spec = pytree.tree_flatten(result)
        special = _Specialization(args, flat, spec)
        if not all(isinstance(v, torch.Tensor) for v in flat) or not flat:
            return special.unsupported(self.options, "its results are not "
                                       "all tensors"), result
        options = self.options
        target = options.get("target") or (
            "cuda" if any(isinstance(a, torch.Tensor) and a.is_cuda
                          for a in args) else "host")
        work = tempfile.mkdtemp(prefix="graphpart-dynamo-")
        try:
            tensors = [i for i, a in enumerate(args)
                       if isinstance(a, torch.Tensor)]

            def program(*inputs):
                merged = list(copies)
                for position, value in zip(tensors, inputs):
                    merged[position] = value
                return tuple(pytree.tree_flatten(self.gm(*merged))[0])
            graph_dir = os.path.join(work, GRAPH_DIR)
            try:
                capture(program, [copies[i] for i in tensors], graph_dir,
                        name="dynamo_graph", method="make_fx")
            except Exception as error:  # noqa: BLE001 - reported, then eager
                return special.unsupported(options, "capture failed: %s"
                                           % error), result
            pipeline = options.get("pipeline_options", "")
            entry = os.path.join(options["cache_dir"],
                                 _digest(graph_dir, target, pipeline))
            special.entry, special.tensors = entry, tensors
            if not os.path.exists(os.path.join(entry, BUILD_FILE)):
                if not self._build(graph_dir, entry, target, pipeline):
                    return special, result
            else:
                self.stats["loaded"] += 1
            special.artifact = load_built(
                entry, options.get("runtime_library"),
                views=options.get("views", False))
            return special, result
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def _build(self, graph_dir, entry, target, pipeline):
        """Builds the cache entry here, or saves the graph there for
        compile-cache. Returns whether an artifact was built."""
        options = self.options
        compiler = options.get("gp_compile")
        mode = options.get("compile", "auto")
        compiler = find_gp_compile(compiler) if mode in ("auto", True) \
            else None
        if mode is True and compiler is None:
            raise GraphError("graphpart backend: compile=True, but "
                             "gp-compile is not found (PATH, "
                             "$GRAPHPART_GP_COMPILE or gp_compile=)")
        os.makedirs(entry, exist_ok=True)
        saved = os.path.join(entry, GRAPH_DIR)
        if not os.path.exists(saved):
            shutil.copytree(graph_dir, saved)
        with open(os.path.join(entry, REQUEST_FILE), "w") as f:
            json.dump({"target": target, "pipeline_options": pipeline}, f)
        if compiler is not None:
            build(saved, entry, target, pipeline, compiler)
            self.stats["compiled"] += 1
            return True
        self.stats["saved"] += 1
        message = ("graphpart backend: no artifact for this graph and no "
                   "gp-compile here; its graph is saved in %s: run "
                   "`python3 -m graphpart compile-cache %s` where the "
                   "compiler tools are, and bring the cache back"
                   % (entry, options["cache_dir"]))
        if options.get("missing", "eager") == "error":
            raise GraphError(message)
        warnings.warn(message + "; running it eagerly meanwhile")
        return False


class _Specialization:
    """One signature of a graph: its artifact (None: runs eagerly) and how
    the artifact's flat results make the graph's result."""

    def __init__(self, args, flat, spec):
        self.spec, self.count = spec, len(flat)
        self.artifact, self.entry, self.tensors = None, None, []

    def unsupported(self, options, why):
        message = "graphpart backend: a graph runs eagerly: %s" % why
        if options.get("missing", "eager") == "error":
            raise GraphError(message)
        warnings.warn(message)
        return self

    def __call__(self, args):
        from torch.utils import _pytree as pytree
        results = self.artifact(*[args[i] for i in self.tensors])
        results = results if isinstance(results, tuple) else (results,)
        if len(results) != self.count:
            raise GraphError("graphpart backend: the artifact in %s gives "
                             "%d results, the graph %d" % (
                                 self.entry, len(results), self.count))
        return pytree.tree_unflatten(list(results), self.spec)


class Backend:
    """The backend: Dynamo calls it with each graph and its example
    inputs; it returns the graph's CompiledGraph."""

    def __init__(self, **options):
        self.options = self._checked(options)
        self.stats = {}

    @staticmethod
    def _checked(options):
        unknown = sorted(set(options) - _OPTIONS)
        if unknown:
            raise GraphError("graphpart backend: unknown option(s) %s; "
                             "known: %s" % (", ".join(unknown),
                                            ", ".join(sorted(_OPTIONS))))
        if options.get("target") not in (None, "host", "cuda"):
            raise GraphError("graphpart backend: target must be host or "
                             "cuda, got %r" % options["target"])
        if options.get("compile", "auto") not in ("auto", True, False):
            raise GraphError("graphpart backend: compile must be 'auto', "
                             "True or False, got %r" % options["compile"])
        if options.get("missing", "eager") not in ("eager", "error"):
            raise GraphError("graphpart backend: missing must be 'eager' or "
                             "'error', got %r" % options["missing"])
        options = dict(options)
        options["cache_dir"] = os.path.abspath(
            options.get("cache_dir") or default_cache_dir())
        return options

    def __call__(self, gm, example_inputs, options=None, mode=None):
        merged = dict(self.options)
        if options:
            merged.update(self._checked(options))
        return CompiledGraph(gm, merged, self.stats)


backend = Backend()


def graphpart_backend(gm, example_inputs, options=None, mode=None):
    """The function registered as backend="graphpart" (its `options` come
    from torch.compile(..., options={...}))."""
    return backend(gm, example_inputs, options, mode)


def register(name="graphpart"):
    """Registers the backend with Dynamo under `name`; False where this
    PyTorch has no Dynamo (before 2.0)."""
    try:
        from torch._dynamo import list_backends, register_backend
    except ImportError:
        return False
    try:
        known = list_backends(exclude_tags=())
    except TypeError:
        known = list_backends()
    if name not in known:
        register_backend(graphpart_backend, name=name)
    return True
