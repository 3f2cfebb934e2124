"""Stands in for `gp-compile --target cuda IN -o OUT` on a machine without
LLVM/MLIR (the GPU machine): copies the artifact compiled beforehand from
IN into $GP_CUDA_ARTIFACTS/<IN's stem>.cuda.so (scripts/device-tests.sh).
"""
import os
import shutil
import sys

args = sys.argv[1:]
# Pipeline options (-p OPTIONS) select an artifact prepared with them:
# <stem>.<OPTIONS>.cuda.so.
options = ""
if len(args) == 5 and args[1] == "-p":
    options = "." + args[2]
    args = [args[0]] + args[3:]
if len(args) != 3 or args[1] != "-o":
    sys.exit("usage: prebuilt.py INPUT.mlir [-p OPTIONS] -o OUTPUT.so")
stem = os.path.splitext(os.path.basename(args[0]))[0] + options
source = os.path.join(os.environ["GP_CUDA_ARTIFACTS"], stem + ".cuda.so")
if not os.path.exists(source):
    sys.exit(f"no prebuilt artifact {source} (run scripts/device-tests.sh prepare)")
shutil.copyfile(source, args[2])
