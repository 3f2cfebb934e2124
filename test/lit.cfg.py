# -*- Python -*-
# lit configuration for GraphPart's regression tests.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config

config.name = "GraphPart"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.gp_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "device"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%gp_src_root", config.gp_src_root))
config.substitutions.append(("%gp_examples", os.path.join(config.gp_src_root, "examples")))
config.substitutions.append(("%gp_docs_build", config.gp_docs_dir))
# The python3 tests run with: the first one on PATH that has numpy (tests
# that compare with numpy say `REQUIRES: numpy`), else the first one.
def _python_with_numpy():
    candidates = [shutil.which("python3"), "/usr/bin/python3"]
    for python in [c for c in candidates if c and os.path.exists(c)]:
        probe = subprocess.run([python, "-c", "import numpy"],
                               capture_output=True)
        if probe.returncode == 0:
            return python
    return None

_numpy_python = _python_with_numpy()
if _numpy_python:
    config.available_features.add("numpy")
config.substitutions.append(
    ("%python", _numpy_python or shutil.which("python3") or "python3"))

# The capture tests need a python3 with torch (Debian's python3-torch in CI):
# `REQUIRES: torch`, run with %torch_python.
def _python_with_torch():
    for python in [shutil.which("python3"), "/usr/bin/python3"]:
        if python and os.path.exists(python) and subprocess.run(
                [python, "-c", "import torch, numpy"],
                capture_output=True).returncode == 0:
            return python
    return None

_torch_python = _python_with_torch()
if _torch_python:
    config.available_features.add("torch")
    config.substitutions.append(("%torch_python", _torch_python))
config.substitutions.append(
    ("%gp_runtime_library",
     os.path.join(config.gp_obj_root, "lib", "libgpruntime.so")))
# The graphpart Python package (python/graphpart), without installing it.
config.substitutions.append(
    ("%graphpart", "env PYTHONPATH=%s %s -m graphpart" % (
        os.path.join(config.gp_src_root, "python"),
        _numpy_python or shutil.which("python3") or "python3")))

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.gp_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["gp-opt", "gp-run", "gp-compile", "gp-codegen"], tool_dirs)
# The examples' custom ops (gp-run --extern-lib).
config.substitutions.append(
    ("%gp_example_externs",
     os.path.join(config.gp_obj_root, "lib", "libgpexampleexterns.so")))
# Upstream's mlir-opt, for loading GraphPart as a plugin.
llvm_config.add_tool_substitutions(["mlir-opt"], [config.llvm_tools_dir])
config.substitutions.append(
    ("%gp_plugin", os.path.join(config.gp_obj_root, "lib", "GraphPartPlugin.so")))

# The runtime's GoogleTest binary, when GoogleTest was found at configure time.
runtime_tests = os.path.join(config.gp_unittests_dir, "GPRuntimeTests")
if os.path.exists(runtime_tests):
    config.available_features.add("gtest")
    config.substitutions.append(("%gp_runtime_tests", runtime_tests))

# gp-run's .npy and element-type library tests.
support_tests = os.path.join(config.gp_unittests_dir, "GPRunSupportTests")
if os.path.exists(support_tests):
    config.substitutions.append(("%gp_run_support_tests", support_tests))

# The held-results driver (unittests/Runtime/HeldResultsDriver.cpp).
config.substitutions.append(
    ("%gp_held_results", os.path.join(config.gp_unittests_dir, "gp-held-results")))
config.substitutions.append(
    ("%gp_same_address", os.path.join(config.gp_unittests_dir, "gp-same-address")))
config.substitutions.append(
    ("%gp_shared_artifact", os.path.join(config.gp_unittests_dir, "gp-shared-artifact")))

# Compiling kernels to cubin needs ptxas from the CUDA toolkit.
_ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
_libdevice = os.path.join(os.path.dirname(os.path.dirname(_ptxas)),
                          "nvvm", "libdevice", "libdevice.10.bc")
if os.path.exists(_ptxas) and os.path.exists(_libdevice):
    config.available_features.add("ptxas")
    llvm_config.with_environment("PATH", os.path.dirname(_ptxas), append_path=True)
    config.substitutions.append(("%libdevice", _libdevice))

# GPU tests declare `REQUIRES: cuda`; they run only where a device answers.
def _has_cuda_device():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "GPU" in out.stdout

if _has_cuda_device():
    config.available_features.add("cuda")

# Compiling for the cuda target. On the GPU machine, which has no LLVM/MLIR,
# scripts/device-tests.sh points GP_CUDA_ARTIFACTS at artifacts compiled
# beforehand and the same RUN lines copy them instead.
# NCCL for collectives on GPUs: scripts/device-tests.sh points
# GP_NCCL_LIBRARY at PyTorch's libnccl.so.2.
if os.path.isfile(os.environ.get("GP_NCCL_LIBRARY", "")):
    config.available_features.add("nccl")
    llvm_config.with_system_environment(["GP_NCCL_LIBRARY"])

if os.environ.get("GP_CUDA_ARTIFACTS"):
    llvm_config.with_system_environment(
        ["GP_CUDA_ARTIFACTS", "GP_TEST_CUBIN", "LD_LIBRARY_PATH"])
    config.substitutions.append(
        ("%gp_compile_cuda",
         "%s %s" % (shutil.which("python3") or "python3",
                    os.path.join(config.gp_src_root, "test", "device", "prebuilt.py"))))
else:
    config.substitutions.append(
        ("%gp_compile_cuda",
         os.path.join(config.gp_tools_dir, "gp-compile") + " --target cuda"))
