"""python3 -m graphpart convert GRAPH_DIR [-o OUT.mlir] [--device cuda:0]
                              [--inline-limit BYTES] [--no-fuse-attention]
python3 -m graphpart compile-cache CACHE_DIR [--gp-compile PATH]"""
import argparse
import sys

from .compiler import compile_cache
from .convert import INLINE_LIMIT, convert
from .format import GraphError, load


def main(argv=None):
    parser = argparse.ArgumentParser(prog="graphpart")
    commands = parser.add_subparsers(dest="command", required=True)
    conv = commands.add_parser(
        "convert", help="a saved graph to linalg-on-tensors MLIR")
    conv.add_argument("graph", help="the directory capture() wrote")
    conv.add_argument("-o", "--output", default="-")
    conv.add_argument("--device", default="cuda:0",
                      help="the device of the program's buffers "
                           "(gp.default_device; cpu or cuda:N)")
    conv.add_argument("--inline-limit", type=int, default=INLINE_LIMIT,
                      help="constants up to this many bytes stay in the "
                           "program; larger ones become parameters "
                           "(default %(default)s)")
    conv.add_argument("--no-fuse-attention", dest="fuse_attention",
                      action="store_false",
                      help="keep attention written out (matmul, softmax, "
                           "matmul) as it is rather than one call of the "
                           "runtime's gp::attention")
    cache = commands.add_parser(
        "compile-cache", help="compile the graphs the torch.compile backend "
                              "saved without an artifact (docs/PyTorch.md)")
    cache.add_argument("cache", help="the backend's cache_dir")
    cache.add_argument("--gp-compile", default=None,
                       help="gp-compile (default: $GRAPHPART_GP_COMPILE, "
                            "then PATH)")
    args = parser.parse_args(argv)
    try:
        if args.command == "compile-cache":
            built, failed = compile_cache(
                args.cache, args.gp_compile,
                log=lambda line: print(line, file=sys.stderr))
            print("compile-cache: %d built, %d failed"
                  % (len(built), len(failed)), file=sys.stderr)
            return 1 if failed else 0
        graph, constants = load(args.graph)
        if args.inline_limit < 0:
            raise GraphError("--inline-limit must be at least 0")
        text = convert(graph, constants, args.device, args.inline_limit,
                       args.fuse_attention)
    except GraphError as error:
        print("graphpart: error: %s" % error, file=sys.stderr)
        return 1
    if args.output == "-":
        sys.stdout.write(text)
        return 0
    try:
        with open(args.output, "w") as f:
            f.write(text)
    except OSError as error:
        print("graphpart: error: cannot write %s: %s"
              % (args.output, error.strerror or error), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
