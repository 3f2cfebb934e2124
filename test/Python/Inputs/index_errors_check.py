"""Indices out of range, where eager PyTorch raises IndexError: each op
that takes an index (embedding, index_select, x[idx], gather, index_put,
index_copy into a cache) compiled with graphpart.compile for the host
backend, called with indices in range (negative ones counted from the end
where PyTorch counts them so) against eager, then with one out of range:
the call fails naming the op and its range, and the next good call runs
(the flag is cleared). The cache written at a position past its length is
left unchanged. gp-run reports the same on the artifact.

    index_errors_check.py RUNTIME_LIBRARY GP_COMPILE GP_RUN WORK
"""
import os
import subprocess
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "python"))
import graphpart  # noqa: E402

runtime, gp_compile, gp_run, work = sys.argv[1:5]
failures = 0


def fail(message):
    global failures
    failures += 1
    print("FAILED " + message)


def good(label, artifact, fn, *args):
    got, want = artifact(*args), fn(*args)
    if got.shape != want.shape or not torch.allclose(got, want):
        fail("%s: differs from eager" % label)
    else:
        print("ok %s" % label)


def bad(label, artifact, *args):
    try:
        artifact(*args)
    except graphpart.GraphError as error:
        text = str(error)
        print("error %s: %s" % (label, text[text.index("index out of"):]))
        return
    fail("%s: no error" % label)


def compiled(name, fn, *args):
    return graphpart.compile(fn, list(args), target="host", name=name,
                             work_dir=os.path.join(work, name),
                             gp_compile=gp_compile, runtime_library=runtime)


torch.manual_seed(0)
table = torch.randn(10, 4)
ids = torch.tensor([[0, 3], [9, 1]])

embed = torch.nn.Embedding(10, 4)
artifact = compiled("embed", embed, ids)
good("embedding", artifact, embed, ids)
bad("embedding id 10", artifact, torch.tensor([[0, 10], [1, 2]]))
bad("embedding id -1", artifact, torch.tensor([[0, 1], [-1, 2]]))
good("embedding after the errors", artifact, embed, ids)


def select(x, i):
    return torch.index_select(x, 0, i)


rows = torch.tensor([2, 9, 0])
artifact = compiled("select", select, table, rows)
good("index_select", artifact, select, table, rows)
bad("index_select row 10", artifact, table, torch.tensor([2, 10, 0]))
bad("index_select row -1", artifact, table, torch.tensor([-1, 1, 0]))


def pick(x, i, j):
    return x[i, j]


i, j = torch.tensor([1, 9]), torch.tensor([3, -4])
artifact = compiled("pick", pick, table, i, j)
good("x[i, j]", artifact, pick, table, i, j)
bad("x[i, j] column 4", artifact, table, i, torch.tensor([3, 4]))


def gather(x, i):
    return torch.gather(x, 1, i)


cols = torch.tensor([[0, 3], [1, 2]]).repeat(5, 1)
artifact = compiled("gather", gather, table, cols)
good("gather", artifact, gather, table, cols)
bad("gather column 7", artifact, table,
    cols.clone().index_fill_(0, torch.tensor([3]), 7))


def put(x, i, v):
    return torch.index_put(x, (i,), v)


values = torch.ones(2, 4)
artifact = compiled("put", put, table, torch.tensor([1, 4]), values)
good("index_put", artifact, put, table, torch.tensor([1, 4]), values)
bad("index_put row 12", artifact, table, torch.tensor([1, 12]), values)


class Cache(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(1, 6, 4))

    def forward(self, x, pos):
        self.cache.index_copy_(1, pos, x)
        return self.cache.sum(1)


cache = Cache()
x, pos = torch.ones(1, 1, 4), torch.tensor([2])
artifact = compiled("cache", cache, x, pos)
cache.cache.zero_()
reference = Cache()
good("index_copy into a cache", artifact, reference, x, pos)
before = cache.cache.clone()
bad("index_copy at position 6", artifact, x, torch.tensor([6]))
if not torch.equal(cache.cache, before):
    fail("the cache changed in the call that failed")
else:
    print("ok the cache is unchanged")

# gp-run: the runtime binds the flag itself (no input, no --parameters for
# it); the call fails, exit 1.
so = os.path.join(work, "pick", "pick.so")
ran = subprocess.run([gp_run, so, "--iterations", "1", "--input",
                      "10x4xf32=1", "--input", "2xi64=1", "--input",
                      "2xi64=5"], capture_output=True, text=True)
message = ran.stderr.strip().splitlines()[-1] if ran.stderr else ""
print("gp-run exit %d: %s" % (ran.returncode,
                              message[message.find("index out of"):]))
print("failures: %d" % failures)
sys.exit(1 if failures else 0)
