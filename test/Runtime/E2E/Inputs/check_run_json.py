"""Checks a `gp-run --json` document against docs/Reports.md's layout
(version 1) and prints a one-line summary for FileCheck. Exits non-zero,
naming the field, on anything missing, mistyped or inconsistent."""
import json
import sys


def fail(message):
    print(f"check_run_json: {message}", file=sys.stderr)
    sys.exit(1)


def want(obj, key, kind, where="document"):
    if key not in obj:
        fail(f"{where}: no '{key}'")
    value = obj[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        fail(f"{where}: '{key}' is a boolean")
    if not isinstance(value, kinds):
        fail(f"{where}: '{key}' is {type(value).__name__}")
    return value


with open(sys.argv[1]) as f:
    doc = json.load(f)
if want(doc, "version", int) != 1:
    fail("version is not 1")
want(doc, "runtime", str)
entries = want(doc, "entries", list)
if not entries or not all(isinstance(e, str) for e in entries):
    fail("entries: not a non-empty list of names")
if want(doc, "backend", str) not in ("host", "cuda"):
    fail("backend")
if want(doc, "target", str) not in ("host", "cuda"):
    fail("target")
for key in ("warmup", "iterations", "rotate", "status"):
    want(doc, key, int)
kinds = []
for index, part in enumerate(want(doc, "partitions", list)):
    where = f"partitions[{index}]"
    if want(part, "index", int, where) != index:
        fail(f"{where}: index")
    kind = want(part, "kind", str, where)
    if kind not in ("capturable", "eager"):
        fail(f"{where}: kind {kind}")
    want(part, "shapeSymbols", int, where)
    reasons = want(part, "reasons", list, where)
    if (kind == "eager") != bool(reasons):
        fail(f"{where}: an eager partition, and only one, has reasons")
    kinds.append(kind + (":" + ",".join(reasons) if reasons else ""))
sizes = want(doc, "sizes", dict)
if set(sizes) != set(entries):
    fail(f"sizes: entries {sorted(sizes)}, but the run's are {sorted(set(entries))}")
classes = []
for entry, listed in sizes.items():
    if not isinstance(listed, list):
        fail(f"sizes.{entry}: not a list")
    for index, size in enumerate(listed):
        where = f"sizes.{entry}[{index}]"
        if not isinstance(size, dict):
            fail(f"{where}: not an object")
        name = want(size, "name", str, where)
        padded = want(size, "padded", bool, where)
        reason = want(size, "reason", (str, type(None)), where)
        fixed = want(size, "fixed", (int, type(None)), where)
        if fixed is not None and fixed < 0:
            fail(f"{where}: fixed is negative")
        if padded and (reason is not None or fixed is not None):
            fail(f"{where}: a padded size has no reason and is not fixed")
        if not padded and fixed is None and not reason:
            fail(f"{where}: a size that is not padded and not fixed says why")
        classes.append(f"{name}:" + ("fixed" if fixed is not None else
                                     "pad" if padded else "nopad"))
latency = want(doc, "latencyMicroseconds", dict)
if want(latency, "steps", int, "latency") != doc["iterations"]:
    fail("latency: one step per iteration")
order = [want(latency, k, (int, float), "latency")
         for k in ("min", "median", "p90", "p99", "max")]
if order != sorted(order) or order[0] < 0:
    fail(f"latency: percentiles out of order {order}")
mean = want(latency, "mean", (int, float), "latency")
if not order[0] - 1e-3 <= mean <= order[-1] + 1e-3:
    fail("latency: mean outside [min, max]")
timed = want(doc, "timedCounters", dict)
for key in ("captures", "instantiations", "updates", "rebinds", "replays"):
    want(timed, key, int, "timedCounters")
counters = want(doc, "counters", dict)
for key in ("warmupRuns", "captures", "instantiations", "updates", "replays",
            "eagerRuns", "shapeWarnings", "evictions", "rebinds",
            "reboundSites", "liveGraphs", "paddedCalls"):
    if want(counters, key, int, "counters") < 0:
        fail(f"counters: {key} is negative")
for key in ("captures", "replays"):
    if timed[key] > counters[key]:
        fail(f"timedCounters.{key} exceeds the run's")
memory = want(doc, "memoryBytes", dict)
for key in ("pool", "largestShapePlans", "plannedDeviceArena", "plannedHostArena"):
    want(memory, key, int, "memoryBytes")
checks = []
for key, count in (("check", "steps"), ("expectedOutput", "results")):
    if key in doc:
        section = want(doc, key, dict)
        want(section, count, int, key)
        ok = want(section, "ok", bool, key)
        bad = section.get("failedSteps", section.get("mismatches"))
        if not isinstance(bad, int) or ok != (bad == 0):
            fail(f"{key}: ok disagrees with its count")
        checks.append(f"{key} {'ok' if ok else 'FAILED'}")
want(doc, "outputs", list)
if (doc["status"] == 0) != all("ok" in c for c in checks):
    fail("status disagrees with the checks")
print(f"entries {','.join(entries)}: partitions {' '.join(kinds)}; "
      f"replays {counters['replays']}; {'; '.join(checks) or 'no checks'}; "
      f"status {doc['status']}")
print(f"sizes {' '.join(classes) or 'none'}; "
      f"padded calls {counters['paddedCalls']}")
