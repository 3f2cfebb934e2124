"""Stands in for `gp-compile --target cuda IN -o OUT` on a machine without
LLVM/MLIR (the GPU machine): copies the artifact compiled beforehand from
IN into $GP_CUDA_ARTIFACTS/<IN's stem>.cuda.so (scripts/device-tests.sh).
"""
import os
import shutil
import sys

args = sys.argv[1:]
# Pipeline options (-p OPTIONS) select an artifact prepared with them:
# <stem>.<OPTIONS>.cuda.so. --bufferize was applied when it was prepared;
# --weights DIR gets the weights prepared with it (<stem>.weights/).
options = ""
weights = None
positional = []
while args:
    arg = args.pop(0)
    if arg == "-p" and args:
        options = "." + args.pop(0)
    elif arg == "--weights" and args:
        weights = args.pop(0)
    elif arg.startswith("--weights="):
        weights = arg[len("--weights="):]
    elif arg == "--bufferize":
        pass
    else:
        positional.append(arg)
if len(positional) != 3 or positional[1] != "-o":
    sys.exit("usage: prebuilt.py INPUT.mlir [-p OPTIONS] [--bufferize] "
             "[--weights DIR] -o OUTPUT.so")
stem = os.path.splitext(os.path.basename(positional[0]))[0]
artifacts = os.environ["GP_CUDA_ARTIFACTS"]
source = os.path.join(artifacts, stem + options + ".cuda.so")
if not os.path.exists(source):
    sys.exit(f"no prebuilt artifact {source} (run scripts/device-tests.sh prepare)")
shutil.copyfile(source, positional[2])
if weights is not None:
    prepared = os.path.join(artifacts, stem + ".weights")
    if not os.path.isdir(prepared):
        sys.exit(f"no prebuilt weights {prepared} (run scripts/device-tests.sh prepare)")
    shutil.copytree(prepared, weights, dirs_exist_ok=True)
