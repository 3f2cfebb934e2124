"""Runs the code blocks of a Markdown page as they are, in order, in a
working directory: ```python blocks in this interpreter, one namespace for
all (a later block uses what an earlier one defined), ```sh blocks with
bash -e. A block after `<!-- doctest: skip (WHY) -->` is skipped (one that
needs a GPU or another PyTorch); the block after `<!-- doctest: setup -->`
is the page's shell setup: run in the source tree, its environment is the
one the other blocks run in, with this build's tools and runtime first
(the build may be elsewhere than the setup assumes).

    doc_blocks.py PAGE.md WORK --src SRC --gp-compile PATH --runtime LIB

Prints a line per block and "docs: N run, M skipped, F failure(s)".
"""
import argparse
import os
import re
import subprocess
import sys
import traceback

MARK = re.compile(r"<!--\s*doctest:\s*(skip|setup)\b\s*(.*?)\s*-->")


def blocks(text):
    """(line, language, code, mark, why) of each fenced block."""
    lines = text.split("\n")
    i, found = 0, []
    while i < len(lines):
        fence = re.match(r"```(\w+)\s*$", lines[i])
        if fence is None:
            i += 1
            continue
        before = next((lines[j] for j in range(i - 1, -1, -1)
                       if lines[j].strip()), "")
        mark = MARK.fullmatch(before.strip())
        end = lines.index("```", i + 1)
        found.append((i + 1, fence.group(1), "\n".join(lines[i + 1:end]),
                      mark.group(1) if mark else None,
                      mark.group(2).strip("()") if mark else ""))
        i = end + 1
    return found


def setup_environment(code, src):
    """The environment after the setup block, run in `src`; None when it
    fails there (not a git checkout, say)."""
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c",
                           code + "\nenv -0"], cwd=src, capture_output=True)
    if done.returncode != 0:
        return None, done.stderr.decode(errors="replace")
    env = dict(item.split("=", 1) for item in
               done.stdout.decode().split("\0") if "=" in item)
    return env, ""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("page")
    parser.add_argument("work")
    parser.add_argument("--src", required=True)
    parser.add_argument("--gp-compile", required=True)
    parser.add_argument("--runtime", required=True)
    args = parser.parse_args()
    with open(args.page) as f:
        found = blocks(f.read())
    os.makedirs(args.work, exist_ok=True)
    env = dict(os.environ)
    run = skipped = failures = 0
    namespace = {"__name__": "__doc__"}
    for line, language, code, mark, why in found:
        where = "%s block at line %d" % (language, line)
        if mark == "skip":
            skipped += 1
            print("skipped %s: %s" % (where, why))
            continue
        if mark == "setup":
            given, error = setup_environment(code, args.src)
            if given is None:
                print("setup %s failed in %s, the test's own environment "
                      "used: %s" % (where, args.src, error.strip()))
            else:
                env = given
                print("ok setup %s" % where)
            # This build's tools and runtime, wherever the build is.
            tools = os.path.dirname(os.path.abspath(args.gp_compile))
            env["PATH"] = tools + os.pathsep + env.get("PATH", "")
            env["GRAPHPART_RUNTIME_LIBRARY"] = args.runtime
            # `python3` in the blocks: this interpreter (it has numpy and
            # torch; the first python3 on PATH may not).
            shims = os.path.join(args.work, ".bin")
            os.makedirs(shims, exist_ok=True)
            if not os.path.exists(os.path.join(shims, "python3")):
                os.symlink(sys.executable, os.path.join(shims, "python3"))
            env["PATH"] = shims + os.pathsep + env["PATH"]
            env["PYTHONPATH"] = os.path.join(args.src, "python") + (
                os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH")
                else "")
            os.environ.clear()
            os.environ.update(env)
            sys.path.insert(0, os.path.join(args.src, "python"))
            continue
        if language not in ("python", "sh"):
            continue
        run += 1
        os.chdir(args.work)
        if language == "sh":
            done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c",
                                   code], cwd=args.work, env=env,
                                  capture_output=True, text=True)
            ok, detail = done.returncode == 0, (done.stdout + done.stderr)
        else:
            try:
                exec(compile(code, "%s:%d" % (args.page, line), "exec"),
                     namespace)
                ok, detail = True, ""
            except Exception:  # noqa: BLE001 - reported as the block's
                ok, detail = False, traceback.format_exc()
        failures += not ok
        print("%s %s" % ("ok" if ok else "FAILED", where))
        if not ok:
            tail = detail.strip().split("\n")[-25:]
            print("\n".join("  " + text for text in tail))
    print("docs: %d run, %d skipped, %d failure(s)" % (run, skipped,
                                                       failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
