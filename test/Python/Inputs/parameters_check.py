"""Parameters bound at load (graphpart.load/compile), on the host backend
against PyTorch eager: zero-copy binding from a live module, updates in
place seen by the next call, moved and replaced tensors bound again, the
other sources (state dict, safetensors file, directory), and the errors
a caller can hit, each naming the parameter.

    parameters_check.py RUNTIME_LIBRARY GP_COMPILE WORK
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


net = Net().eval()
original = copy.deepcopy(net)
ids, x = torch.randint(0, 10, (4,)), torch.randn(4, 16)
graph_dir = os.path.join(work, "graph")
graph = graphpart.capture(net, [ids, x], graph_dir, name="net",
                          method="make_fx")
print("parameters: %s" % " ".join(
    "%s%s" % (p["fqn"], p["shape"]) for p in graph["parameters"]))
print("constants: %d" % len(graph.get("constants", [])))

compiled = graphpart.compile(net, [ids, x], target="host", name="net",
                             gp_compile=gp_compile, runtime_library=runtime,
                             method="make_fx",
                             work_dir=os.path.join(work, "compiled"))
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
    net.fc1.bias = torch.nn.Parameter(torch.randn(32))
    check("after a replaced parameter", compiled(ids, x), net(ids, x))
    net.shift = torch.randn(16)
    check("after a replaced buffer", compiled(ids, x), net(ids, x))

    # Other sources, each a copy made once.
    state = {k: v.clone() for k, v in net.state_dict().items()}
    artifact = os.path.join(work, "compiled", "net.so")
    from_dict = graphpart.load(artifact, parameters=state,
                               runtime_library=runtime)
    check("from a state dict", from_dict(ids, x), net(ids, x))
    tensors = {k: v.numpy() for k, v in state.items()}
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
    error("meta", lambda: graphpart.load(
        artifact, parameters=dict(state, **{
            "shift": torch.empty(16, device="meta")}),
        runtime_library=runtime))
    strided = Net()
    strided.fc1.weight = torch.nn.Parameter(torch.randn(16, 32).t())
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

print("failures: %d" % failures)
sys.exit(1 if failures else 0)
