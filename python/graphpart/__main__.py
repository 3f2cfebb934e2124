"""python3 -m graphpart convert GRAPH_DIR [-o OUT.mlir] [--device cuda:0]"""
import argparse
import sys

from .convert import convert
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
    args = parser.parse_args(argv)
    try:
        graph, constants = load(args.graph)
        text = convert(graph, constants, args.device)
    except GraphError as error:
        print("graphpart: error: %s" % error, file=sys.stderr)
        return 1
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
