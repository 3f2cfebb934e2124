"""Stands in for `gp-compile --target cuda IN -o OUT` on a machine without
LLVM/MLIR (the GPU machine): copies the artifact compiled beforehand from
IN into $GP_CUDA_ARTIFACTS/<IN's stem>.cuda.so (scripts/device-tests.sh).
"""
import os
import shutil
import sys

args = sys.argv[1:]
if len(args) != 3 or args[1] != "-o":
    sys.exit("usage: prebuilt.py INPUT.mlir -o OUTPUT.so")
stem = os.path.splitext(os.path.basename(args[0]))[0]
source = os.path.join(os.environ["GP_CUDA_ARTIFACTS"], stem + ".cuda.so")
if not os.path.exists(source):
    sys.exit(f"no prebuilt artifact {source} (run scripts/device-tests.sh prepare)")
shutil.copyfile(source, args[2])
