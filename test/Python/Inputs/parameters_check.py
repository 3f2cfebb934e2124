"""Parameters bound at load (graphpart.load/compile), on the host backend
against PyTorch eager: zero-copy binding from a live module, updates in
place seen by the next call, moved and replaced tensors bound again, the
other sources (state dict, safetensors file, directory), and the errors
a caller can hit, each naming the parameter.

    parameters_check.py RUNTIME_LIBRARY GP_COMPILE WORK
    parameters_check.py RUNTIME_LIBRARY --prebuilt WORK   (cuda)

The first captures (make_fx), compiles with graphpart.compile for the host
and checks; `prepare` in scripts/device-tests.sh runs it with
GP_PARAMETERS_TARGET=cuda to leave WORK/graph and WORK/compiled/net.so
for the cuda target, and the second form checks that artifact on the GPU
(CUDA tensors, loaded with module=), adding a call ordered on a side
stream behind queued work, with no synchronization between.
"""
import copy
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "python"))
import graphpart  # noqa: E402
from graphpart import runtime as gp_runtime  # noqa: E402

runtime, gp_compile, work = sys.argv[1:4]
prebuilt = gp_compile == "--prebuilt"
target = "cuda" if prebuilt else os.environ.get("GP_PARAMETERS_TARGET",
                                                "host")
device = "cuda" if prebuilt else "cpu"
torch.manual_seed(5)
failures = 0


def check(label, got, want):
    global failures
    ok = got.shape == want.shape and torch.allclose(got, want, rtol=1e-4,
                                                    atol=1e-5)
    failures += not ok
    print("%s %s" % ("ok" if ok else "FAILED", label))


def error(label, action):
    global failures
    try:
        action()
    except graphpart.GraphError as raised:
        print("error %s: %s" % (label, raised))
        return
    failures += 1
    print("FAILED no error for %s" % label)


class Net(torch.nn.Module):
    """Two layers, a buffer and a tied weight (as a language model's
    embedding and head)."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(10, 16)
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 16)
        self.register_buffer("shift", torch.randn(16))
        self.head = torch.nn.Linear(16, 10, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, ids, x):
        h = self.embed(ids) + x
        h = self.fc2(torch.relu(self.fc1(h))) + self.shift
        return self.head(h)


net = Net().eval().to(device)
original = copy.deepcopy(net)
ids = torch.randint(0, 10, (4,), device=device)
x = torch.randn(4, 16, device=device)
graph_dir = os.path.join(work, "graph")
artifact = os.path.join(work, "compiled", "net.so")
if prebuilt:
    # The artifact does not depend on the weights: this module's own are
    # bound, and the capture's saved files are another module's.
    graph = graphpart.load_graph(graph_dir)[0]
    compiled = graphpart.load(artifact, module=net, runtime_library=runtime)
    original = Net().eval()
    original.load_state_dict({
        k: torch.from_numpy(v[0]) for k, v in graphpart.read_safetensors(
            os.path.join(work, "captured.safetensors")).items()})
    original = original.to(device)
else:
    graph = graphpart.capture(net, [ids, x], graph_dir, name="net",
                              method="make_fx")
    graphpart.write_safetensors(
        os.path.join(work, "captured.safetensors"),
        {k: v.detach().numpy() for k, v in net.state_dict().items()})
    if target == "cuda":
        # Built here, loaded on the GPU machine.
        from graphpart.compiler import build
        build(graph_dir, os.path.join(work, "compiled"), "cuda",
              gp_compile=gp_compile)
        print("built for cuda in %s" % work)
        sys.exit(0)
    compiled = graphpart.compile(net, [ids, x], target=target, name="net",
                                 gp_compile=gp_compile,
                                 runtime_library=runtime, method="make_fx",
                                 work_dir=os.path.join(work, "compiled"))
print("parameters: %s" % " ".join(
    "%s%s" % (p["fqn"], p["shape"]) for p in graph["parameters"]))
print("constants: %d" % len(graph.get("constants", [])))
print("native call path: %s" % compiled.native)
with torch.no_grad():
    check("module call", compiled(ids, x), net(ids, x))
    # Zero-copy: the program reads the module's own storage.
    state = dict(net.named_parameters())
    state.update(net.named_buffers())
    same = all(compiled._bound[n].data_ptr() == state[n].data_ptr()
               for n in compiled.parameters)
    print("bound without a copy: %s" % same)

    # An update in place (load_state_dict copies into the same storage).
    fresh = Net()
    net.load_state_dict(fresh.state_dict())
    check("after load_state_dict", compiled(ids, x), net(ids, x))
    net.fc1.weight.mul_(2)
    check("after an in-place update", compiled(ids, x), net(ids, x))

    # Moved storage (what .to() does to each parameter): bound again.
    net.fc2.weight.data = net.fc2.weight.data.clone() * 0.5
    check("after the storage moved", compiled(ids, x), net(ids, x))
    # A replaced parameter object, and load_state_dict(assign=True) where
    # PyTorch has it.
    net.fc1.bias = torch.nn.Parameter(torch.randn(32, device=device))
    check("after a replaced parameter", compiled(ids, x), net(ids, x))
    net.shift = torch.randn(16, device=device)
    check("after a replaced buffer", compiled(ids, x), net(ids, x))
    if hasattr(torch.nn.Module, "load_state_dict") and "assign" in \
            torch.nn.Module.load_state_dict.__code__.co_varnames:
        net.load_state_dict({k: v.clone() * 1.5 for k, v in
                             net.state_dict().items()}, assign=True)
    else:  # PyTorch 1.13: the same replacement, by hand.
        for name, value in list(net.fc2.named_parameters()):
            setattr(net.fc2, name, torch.nn.Parameter(value.detach() * 1.5))
    check("after load_state_dict(assign=True)", compiled(ids, x),
          net(ids, x))
    if device == "cuda":
        # Ordered on the current stream: a side stream with a long matmul
        # queued before the update of the input, then the call, nothing
        # synchronized in between.
        side = torch.cuda.Stream()
        big = torch.randn(4096, 4096, device=device)
        with torch.cuda.stream(side):
            for _ in range(8):
                big = big @ big * 1e-3
            x_side = x * 0 + big[:4, :16] * 0 + x
            got = compiled(ids, x_side)
            want = net(ids, x_side)
        torch.cuda.synchronize()
        check("on a side stream, no synchronization", got, want)

    # Other sources, each a copy made once.
    state = {k: v.clone() for k, v in net.state_dict().items()}
    from_dict = graphpart.load(artifact, parameters=state,
                               runtime_library=runtime)
    check("from a state dict", from_dict(ids, x), net(ids, x))
    tensors = {k: v.cpu().numpy() for k, v in state.items()}
    safetensors = os.path.join(work, "net.safetensors")
    graphpart.write_safetensors(safetensors, tensors)
    from_file = graphpart.load(artifact, parameters=safetensors,
                               runtime_library=runtime)
    check("from a safetensors file", from_file(ids, x), net(ids, x))
    from_dir = graphpart.load(artifact,
                              parameters=os.path.join(graph_dir,
                                                      "parameters"),
                              runtime_library=runtime)
    check("from the capture's files (the weights captured)",
          from_dir(ids, x), original(ids, x))
    # A copy is not the module: the module's next update is not seen.
    net.fc2.bias.add_(1)
    stale = not torch.allclose(from_dict(ids, x), net(ids, x))
    print("a state dict is a copy: %s" % stale)

    # Errors: at load, naming the parameter, nothing run.
    error("missing", lambda: graphpart.load(artifact,
                                            runtime_library=runtime))
    partial = dict(state)
    del partial["fc2.weight"]
    error("missing one", lambda: graphpart.load(
        artifact, parameters=partial, runtime_library=runtime))
    error("dtype", lambda: graphpart.load(
        artifact, parameters=dict(state, **{
            "fc1.weight": state["fc1.weight"].double()}),
        runtime_library=runtime))
    error("shape", lambda: graphpart.load(
        artifact, parameters=dict(state, **{
            "fc1.bias": torch.zeros(31)}), runtime_library=runtime))
    if device == "cuda":
        cpu_net = copy.deepcopy(net).cpu()
        error("device", lambda: graphpart.load(
            artifact, module=cpu_net, runtime_library=runtime))
    error("meta", lambda: graphpart.load(
        artifact, parameters=dict(state, **{
            "shift": torch.empty(16, device="meta")}),
        runtime_library=runtime))
    strided = Net().to(device)
    strided.fc1.weight = torch.nn.Parameter(
        torch.randn(16, 32, device=device).t())
    error("not contiguous", lambda: graphpart.load(
        artifact, module=strided, runtime_library=runtime))
    # A module changed so that it no longer fits: the next call fails,
    # naming the parameter, instead of reading old memory.
    net.fc2.double()
    error("module no longer fits", lambda: compiled(ids, x))
    net.fc2.float()
    check("fits again", compiled(ids, x), net(ids, x))
    compiled.close()
    error("closed", lambda: compiled(ids, x))
    error("meta input", lambda: from_dict(ids, torch.empty(4, 16,
                                                           device="meta")))
    if device == "cuda":
        error("cpu input", lambda: from_dict(ids, x.cpu()))

print("failures: %d" % failures)
sys.exit(1 if failures else 0)
