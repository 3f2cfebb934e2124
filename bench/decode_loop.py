"""A greedy decode loop with a static key/value cache, per generated token:
PyTorch eager, torch.compile(mode="reduce-overhead") and the GraphPart
artifact through graphpart.load, in one process on the same CUDA module.

The model (Decoder below) is a GPT-2-like decoder written in torch.nn, one
token per call, in the "static cache" pattern of Hugging Face transformers:
each block owns buffers k_cache and v_cache [B, heads, T, d / heads] and
writes the step's key and value in place (index_copy_ at `pos`), then
attends over the whole cache, masked to the positions <= pos. The caches
are module state the program writes: the artifact, loaded with the module,
writes the module's own cache buffers, no copy. Positions must stay below T:
eager's index_copy_ refuses pos >= T, and an artifact must not write out of
bounds there either (not tested here). Sizes: `small` (vocab 512, width 128,
4 heads, 2 layers, T 64) for quick checks and `gpt2` (50257, 768, 12, 12,
T 512 unless --length), f32, random weights (seed 0).

    decode_loop.py capture OUT [--size small|gpt2] [--batch B] [--length T]
                               [--device cuda|cpu]        GPU machine
    decode_loop.py build OUT WORK [--gp-compile P]        development machine
    decode_loop.py run RUNTIME WORK [NAME ...] [--tokens N] [--rounds R]
    decode_loop.py memory RUNTIME WORK NAME graphpart|reduce-overhead
    decode_loop.py profile RUNTIME WORK [NAME ...] [--tokens N]

`capture` saves the graph of one step without its weights (graph.json only;
`--device cpu` captures with make_fx where PyTorch has no torch.export, and
the build still compiles it for cuda)
as decode_SIZE_bB (_tT for a length other than the size's) and adds it,
with its configuration and capture time, to OUT/captures.json (repeated
captures into one OUT accumulate). `build` converts and compiles each for
cuda (WORK/decode.json). `run` builds each model again from its
configuration, loads the artifact bound to the module's parameters and
caches, and first checks it against an independent eager copy
(copy.deepcopy, its own caches) over N greedy steps from token 1 in every
row: the logits at every step (pytorch_models.close_enough), the argmax
tokens (none may differ) and, at the end, the module's caches against the
copy's (the artifact wrote the module's own buffers). Then it times the
N-token greedy loop (caches reset, N calls with pos advancing on the
device and each step's argmax fed back, one synchronize at the end; time
per token = total / N) for the three, taking turns R times (3), and
GraphPart's call repeated N times at one fixed position: the loop's cost
per token over the fixed step's says what the changing inputs cost
(target <= 1.1x). N is at most T. `memory` (one process per measurement)
reports the device memory a warmed-up runner holds beyond the module
(torch.cuda.mem_get_info before and after: max_memory_allocated does not
see GraphPart's own allocations). `profile` prints, per token of an
N-token loop (64), GraphPart's and reduce-overhead's wall time, device
activities, GPU busy time and largest kernels (torch.profiler).
"""
import copy
import json
import math
import os
import statistics
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "python"))
sys.path.insert(0, here)
import pytorch_models  # noqa: E402
from pytorch_models import close_enough, options, true_f32  # noqa: E402

SIZES = {"small": dict(vocab=512, width=128, heads=4, layers=2, length=64),
         "gpt2": dict(vocab=50257, width=768, heads=12, layers=12,
                      length=512)}
PROMPT = 1  # the first token of every row


def model_classes():
    """Decoder and Block, defined once torch is imported (the build stage
    runs without torch)."""
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self, width, heads, length, batch):
            super().__init__()
            self.heads, self.length = heads, length
            self.ln_1 = nn.LayerNorm(width)
            self.qkv = nn.Linear(width, 3 * width)
            self.proj = nn.Linear(width, width)
            self.ln_2 = nn.LayerNorm(width)
            self.up = nn.Linear(width, 4 * width)
            self.down = nn.Linear(4 * width, width)
            shape = (batch, heads, length, width // heads)
            # Persistent: in the state dict, where every PyTorch version's
            # torch.export finds a buffer's value.
            self.register_buffer("k_cache", torch.zeros(shape))
            self.register_buffer("v_cache", torch.zeros(shape))

        def forward(self, x, pos):
            batch, _, width = x.shape
            q, k, v = self.qkv(self.ln_1(x)).split(width, dim=-1)
            q, k, v = (t.view(batch, 1, self.heads, width // self.heads)
                       .transpose(1, 2) for t in (q, k, v))
            self.k_cache.index_copy_(2, pos, k)
            self.v_cache.index_copy_(2, pos, v)
            scores = q @ self.k_cache.transpose(-2, -1) / math.sqrt(
                width // self.heads)
            # The cache's positions past `pos` hold zeros (or an earlier
            # sequence's values): never attended to.
            visible = torch.arange(self.length, device=x.device) <= pos
            scores = scores.masked_fill(~visible, float("-inf"))
            attended = scores.softmax(-1) @ self.v_cache
            x = x + self.proj(attended.transpose(1, 2).reshape(batch, 1,
                                                               width))
            return x + self.down(nn.functional.gelu(self.up(self.ln_2(x)),
                                                    approximate="tanh"))

    class Decoder(nn.Module):
        """forward(tokens int64 [B, 1], pos int64 [1]) -> logits [B, 1, V]:
        the next token's logits after the tokens before `pos` (cached)."""

        def __init__(self, vocab, width, heads, layers, length, batch):
            super().__init__()
            self.batch = batch
            self.wte = nn.Embedding(vocab, width)
            self.wpe = nn.Embedding(length, width)
            self.blocks = nn.ModuleList(Block(width, heads, length, batch)
                                        for _ in range(layers))
            self.ln_f = nn.LayerNorm(width)
            self.lm_head = nn.Linear(width, vocab, bias=False)

        def forward(self, tokens, pos):
            x = self.wte(tokens) + self.wpe(pos)
            for block in self.blocks:
                x = block(x, pos)
            return self.lm_head(self.ln_f(x))

        def reset(self):
            """A new sequence: the caches zeroed in place (their memory,
            which a loaded artifact is bound to, stays)."""
            for block in self.blocks:
                block.k_cache.zero_()
                block.v_cache.zero_()

    return Decoder, Block


def make_model(config, device="cuda"):
    """The model of `config` (SIZES' fields and batch), eval mode, the
    same weights for the same config (seed 0)."""
    import torch
    torch.manual_seed(0)
    Decoder, _ = model_classes()
    return Decoder(**config).eval().to(device)


def step_inputs(model):
    """(tokens [B, 1], pos [1]) on the model's device: the prompt token at
    position 0."""
    import torch
    device = model.wte.weight.device
    tokens = torch.full((model.batch, 1), PROMPT, dtype=torch.int64,
                        device=device)
    return tokens, torch.zeros(1, dtype=torch.int64, device=device)


def capture_main(args):
    import torch
    import graphpart
    flags = options(args, {"--size": "small", "--batch": 1, "--length": 0,
                           "--device": "cuda"})
    out = args[0]
    config = dict(SIZES[flags["--size"]], batch=flags["--batch"])
    name = "decode_%s_b%d" % (flags["--size"], flags["--batch"])
    if flags["--length"] and flags["--length"] != config["length"]:
        config["length"] = flags["--length"]
        name += "_t%d" % flags["--length"]
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "captures.json")
    record = {}
    if os.path.exists(path):
        with open(path) as f:
            record = json.load(f)
    model = make_model(config, flags["--device"])
    start = time.perf_counter()
    try:
        with torch.no_grad():
            graphpart.capture(model, step_inputs(model),
                              os.path.join(out, name), name=name,
                              save_parameters=False)
    except graphpart.GraphError as error:
        print("FAILED capture %s: %s" % (name, str(error)[:2000]))
        return 1
    record[name] = {"capture_s": time.perf_counter() - start,
                    "config": config}
    print("captured %s in %.1f s" % (name, record[name]["capture_s"]))
    with open(path, "w") as f:
        json.dump(record, f, indent=1)
    return 0


def build_main(args):
    """pytorch_models.py's build stage, recorded in WORK/decode.json."""
    return pytorch_models.build_main(args, record_file="decode.json")


def load_artifact(work, entry, runtime, model):
    import graphpart
    return graphpart.load(os.path.join(work, entry["artifact"]),
                          module=model, runtime_library=runtime,
                          mutated_inputs=entry.get("mutated_inputs"))


def check(name, artifact, model, reference, steps):
    """The artifact against the eager copy over `steps` greedy steps; True
    when every step's logits are close and no argmax differs, and the
    module's caches equal the copy's at the end. Both are fed the copy's
    tokens, so every step compares the same inputs (with no failure that
    is each one's own greedy sequence)."""
    import torch
    model.reset()
    reference.reset()
    tokens, pos = step_inputs(model)
    worst_logits, differing, first_bad = 0.0, 0, None
    for step in range(steps):
        got = artifact(tokens, pos)
        want = reference(tokens, pos)
        ok, worst = close_enough(got, want)
        worst_logits = max(worst_logits, worst)
        chosen, wanted = got.argmax(-1), want.argmax(-1)
        if not torch.equal(chosen, wanted):
            differing += 1
            ok = False
        if not ok and first_bad is None:
            # How far apart the eager logits of the two choices are: near
            # zero is a near tie, not a wrong program.
            gap = (want.gather(-1, wanted[..., None]) -
                   want.gather(-1, chosen[..., None])).max().item()
            first_bad = "step %d: max abs logit difference %.3g, eager's " \
                "logit gap between the tokens chosen %.3g" % (step, worst,
                                                               gap)
        tokens.copy_(wanted)
        pos.add_(1)
    mine = dict(model.named_buffers())
    worst_cache, unwritten = 0.0, []
    for key, theirs in reference.named_buffers():
        ok, worst = close_enough(mine[key], theirs)
        worst_cache = max(worst_cache, worst)
        if not mine[key].any():
            unwritten.append(key)
        elif not ok and first_bad is None:
            first_bad = "cache %s differs by %.3g after the loop" % (key,
                                                                    worst)
    if unwritten and first_bad is None:
        first_bad = "the module's caches were not written (%s, ...): the " \
            "artifact wrote other memory" % unwritten[0]
    if first_bad is not None:
        print("FAILED %s: %s; %d of %d steps' tokens differ" % (
            name, first_bad, differing, steps))
        return False
    print("%-16s checked: %d greedy steps, no token differs, max abs logit "
          "difference %.2g; the module's caches equal eager's (max abs "
          "difference %.2g)" % (name, steps, worst_logits, worst_cache))
    return True


def greedy_loop(runner, model, steps, fixed=False):
    """Seconds per token of a `steps`-token greedy loop from the prompt,
    the caches reset first, inputs updated in place (stable addresses);
    `fixed`: the same call `steps` times at one position, the step's cost
    without the loop's changing inputs."""
    import torch
    model.reset()
    tokens, pos = step_inputs(model)
    pos.fill_(steps // 2 if fixed else 0)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(steps):
        logits = runner(tokens, pos)
        if not fixed:
            torch.argmax(logits, -1, out=tokens)
            pos.add_(1)
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / steps


def take_turns(timers, rounds):
    """Each timer (no arguments, seconds) in turn, `rounds` times: (each
    one's median over the rounds in microseconds, the median of the
    rounds' ratios graphpart / each, graphpart's max/min)."""
    samples = {name: [] for name in timers}
    for _ in range(rounds):
        for name, timer in timers.items():
            samples[name].append(timer() * 1e6)
    median = {k: statistics.median(v) for k, v in samples.items()}
    ratio = {k: statistics.median(ours / theirs for ours, theirs in
                                  zip(samples["graphpart"], v))
             for k, v in samples.items()}
    return median, ratio, max(samples["graphpart"]) / min(
        samples["graphpart"])


def cudagraph_skips():
    """How many times Inductor fell back from CUDA graphs (a buffer
    mutation it refuses, say): reduce-overhead is then not what it says.
    None where this PyTorch does not count them."""
    try:
        from torch._dynamo.utils import counters
    except ImportError:
        return None
    return counters["inductor"].get("cudagraph_skips")


def run_main(args):
    import torch
    true_f32()
    flags = options(args, {"--tokens": 256, "--rounds": 3})
    runtime, work, wanted = args[0], args[1], args[2:]
    with open(os.path.join(work, "decode.json")) as f:
        record = json.load(f)
    failures = 0
    for name, entry in sorted(record.items()):
        if (wanted and name not in wanted) or "artifact" not in entry:
            continue
        steps = min(flags["--tokens"], entry["config"]["length"])
        model = make_model(entry["config"])
        # Copied before anything runs: its own parameters and caches.
        reference = copy.deepcopy(model)
        artifact = load_artifact(work, entry, runtime, model)
        with torch.no_grad():
            if not check(name, artifact, model, reference, steps):
                failures += 1
                artifact.close()
                continue
            del reference
            # The same module: it writes the same caches, reset per loop.
            compiled = torch.compile(model, mode="reduce-overhead")
            model.reset()
            tokens, pos = step_inputs(model)
            torch.cuda.synchronize()
            start = time.perf_counter()
            compiled(tokens, pos)
            torch.cuda.synchronize()
            first_call = time.perf_counter() - start
            runners = {"eager": model, "reduce-overhead": compiled,
                       "graphpart": artifact}
            for runner in runners.values():  # warm-up (CUDA graph records)
                greedy_loop(runner, model, steps)
            timers = {k: (lambda r=r: greedy_loop(r, model, steps))
                      for k, r in runners.items()}
            timers["fixed"] = lambda: greedy_loop(artifact, model, steps,
                                                  fixed=True)
            median, ratio, spread = take_turns(timers, flags["--rounds"])
        print("%-16s per token: graphpart %7.1f us  eager %7.1f  "
              "reduce-overhead %7.1f  gp/eager %.2fx  gp/RO %.2fx  "
              "(%d tokens, %d rounds, gp max/min %.2f)" % (
                  name, median["graphpart"], median["eager"],
                  median["reduce-overhead"], ratio["eager"],
                  ratio["reduce-overhead"], steps, flags["--rounds"],
                  spread))
        print("%-16s graphpart fixed-position step %7.1f us: loop / fixed "
              "%.2fx (target <= 1.1x); native %s; torch.compile's first "
              "call %.1f s, cudagraph skips %s; capture %.1f s + convert "
              "and compile %.1f s" % (
                  name, median["fixed"], ratio["fixed"],
                  artifact.native, first_call, cudagraph_skips(),
                  entry.get("capture_s", 0),
                  entry.get("convert_compile_s", 0)))
        sys.stdout.flush()
        artifact.close()
        del compiled
        torch._dynamo.reset()
    return 1 if failures else 0


def memory_main(args):
    """Device memory a warmed-up runner holds beyond the module (its
    parameters and caches), in this process alone."""
    import torch
    true_f32()
    runtime, work, name, kind = args
    with open(os.path.join(work, "decode.json")) as f:
        entry = json.load(f)[name]
    model = make_model(entry["config"])
    torch.cuda.synchronize()
    free_before = torch.cuda.mem_get_info()[0]
    with torch.no_grad():
        if kind == "graphpart":
            runner = load_artifact(work, entry, runtime, model)
        else:
            runner = torch.compile(model, mode="reduce-overhead")
        # A few tokens: enough for CUDA graph trees to record.
        greedy_loop(runner, model, min(8, entry["config"]["length"]))
    torch.cuda.synchronize()
    held = free_before - torch.cuda.mem_get_info()[0]
    print("%-16s %-16s holds %8.1f MiB beyond the module's parameters and "
          "caches" % (name, kind, held / 2 ** 20))
    return 0


def profile_main(args):
    """Per token of a greedy loop, GraphPart against reduce-overhead: the
    wall time, the device activities and the GPU's busy time (torch.profiler
    sees the kernels inside graph replays), and the largest kernels."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    true_f32()
    flags = options(args, {"--tokens": 64})
    runtime, work, wanted = args[0], args[1], args[2:]
    with open(os.path.join(work, "decode.json")) as f:
        record = json.load(f)
    for name, entry in sorted(record.items()):
        if (wanted and name not in wanted) or "artifact" not in entry:
            continue
        steps = min(flags["--tokens"], entry["config"]["length"])
        model = make_model(entry["config"])
        artifact = load_artifact(work, entry, runtime, model)
        with torch.no_grad():
            compiled = torch.compile(model, mode="reduce-overhead")
            for label, runner in (("graphpart", artifact),
                                  ("reduce-overhead", compiled)):
                for _ in range(2):  # warm-up (CUDA graph records)
                    greedy_loop(runner, model, steps)
                wall = greedy_loop(runner, model, steps) * 1e6
                with profile(activities=[ProfilerActivity.CUDA]) as recorded:
                    greedy_loop(runner, model, steps)
                activities = [
                    (e.name, e.time_range.start, e.time_range.end)
                    for e in recorded.events()
                    if e.device_type == torch.autograd.DeviceType.CUDA]
                print("%s %s: %.1f us per token, %.1f device activities and "
                      "%.1f us GPU busy per token (%d tokens)" % (
                          name, label, wall, len(activities) / steps,
                          pytorch_models.busy_us(activities) / steps, steps))
                pytorch_models.print_largest(activities, steps, "token")
                sys.stdout.flush()
        artifact.close()
        del compiled
        torch._dynamo.reset()
    return 0


def main():
    args = sys.argv[1:]
    commands = {"capture": capture_main, "build": build_main,
                "run": run_main, "memory": memory_main,
                "profile": profile_main}
    if not args or args[0] not in commands:
        print(__doc__, file=sys.stderr)
        return 2
    return commands[args[0]](args[1:])


if __name__ == "__main__":
    sys.exit(main())
