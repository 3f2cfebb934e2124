"""Checks a report-file (docs/Reports.md) against the layout, version 1.

    check_report_schema.py REPORT.json
Prints one summary line per function; exits non-zero on any mismatch.
"""
import json
import sys

report = json.load(open(sys.argv[1]))


def need(value, kind, where):
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        sys.exit(f"schema: {where} is {value!r}, not {kind.__name__}")


need(report.get("version"), int, "version")
assert report["version"] == 1, "schema: version must be 1"
need(report.get("pass"), str, "pass")
need(report.get("functions"), list, "functions")
for f in report["functions"]:
    for key in ("name", "location"):
        need(f.get(key), str, f"function.{key}")
    for key in ("arguments", "results", "partitions", "buffers", "arenas", "sizes"):
        need(f.get(key), list, f"{f['name']}.{key}")
    need(f.get("frees"), int, f"{f['name']}.frees")
    for p in f["partitions"]:
        need(p.get("id"), int, "partition.id")
        assert p.get("kind") in ("capturable", "eager"), p.get("kind")
        need(p.get("reasons"), list, "partition.reasons")
        need(p.get("location"), str, "partition.location")
        for i in p["inputs"]:
            need(i.get("type"), str, "input.type")
            need(i.get("written"), bool, "input.written")
            need(i.get("freed"), bool, "input.freed")
        for o in p["ops"]:
            need(o.get("op"), str, "op.op")
            need(o.get("location"), str, "op.location")
    for b in f["buffers"]:
        need(b.get("type"), str, "buffer.type")
        need(b.get("device"), str, "buffer.device")
        need(b.get("bytes"), int, "buffer.bytes")
        need(b.get("partition"), int, "buffer.partition")
        assert b.get("offset") is None or isinstance(b["offset"], int)
    for a in f["arenas"]:
        need(a.get("device"), str, "arena.device")
        need(a.get("bytes"), int, "arena.bytes")
    for s in f["sizes"]:
        need(s.get("name"), str, "size.name")
        for key in ("arguments", "results"):
            need(s.get(key), list, "size." + key)
            for pair in s[key]:
                assert isinstance(pair, list) and len(pair) == 2, pair
        need(s.get("paddable"), bool, "size.paddable")
        assert s.get("fixed") is None or isinstance(s["fixed"], int)
        assert (s.get("reason") is None) == s["paddable"], s
    sizes = "".join(
        f"; size {s['name']} " + ("paddable" if s["paddable"] else "not paddable: " + s["reason"])
        for s in f["sizes"])
    kinds = [p["kind"] + (":" + ",".join(p["reasons"]) if p["reasons"] else "")
             for p in f["partitions"]]
    print(f"function {f['name']}: partitions {' '.join(kinds)}; "
          f"buffers {len(f['buffers'])}; frees {f['frees']}; "
          f"arenas {' '.join(str(a['bytes']) for a in f['arenas'])}{sizes}")
