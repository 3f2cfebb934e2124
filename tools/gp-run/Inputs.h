//===- Inputs.h - gp-run's --input specs and their placement ----*- C++ -*-===//
//
// An entry point's arguments: parsed from `--input SPEC`, checked against
// what the entry takes, and placed where it takes them (host memory, the
// program's device memory, or nowhere for meta tensors).
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_TOOLS_GPRUN_INPUTS_H
#define GRAPHPART_TOOLS_GPRUN_INPUTS_H

#include "ElementType.h"

#include "GraphPart/Runtime/GPRuntime.h"

#include <random>
#include <string>
#include <vector>

namespace gp::run {

/// An argument as given on the command line.
struct Input {
  bool isIndex = false;
  int64_t index = 0;
  Array array;
};

/// What an input may hold, checked before allocating.
constexpr int64_t kMaxInputBytes = int64_t(1) << 40;

/// Parses the spec of argument `position` (SHAPExTYPE=VALUE, SHAPExTYPE=
/// V0,V1,... (one per element), SHAPExTYPE=random, SHAPExTYPE=@file.npy,
/// @file.npy, or an integer for an index argument) into `input` and
/// checks it against `info`. Random values are drawn from `random`. On bad
/// input, returns false with the reason in `error`.
bool parseInput(const std::string &spec, const gpRtValueInfo &info,
                int position, std::mt19937_64 &random, Input &input,
                std::string &error, int64_t maxBytes = kMaxInputBytes);

/// Fills `array` with random values as the `random` spec does: floats in
/// [-1, 1], integers in [0, 7].
void fillRandom(Array &array, std::mt19937_64 &random);

/// New values for `array` between --check steps: random floats as
/// fillRandom gives; integer (and bool) elements shuffled among themselves,
/// so indices the given input held stay in range.
void freshValues(Array &array, std::mt19937_64 &random);

/// Whether a value's device (gpRtValueInfo::device) is the host's memory.
bool isHostDevice(const char *device);
/// Whether a value's device is "meta": sizes only, no data.
bool isMetaDevice(const char *device);

/// An argument placed in a program's memory, as the entry point takes it.
struct Placed {
  std::vector<uint8_t> storage; // a gpRtMemRef or an int64_t
  void *memory = nullptr;
  bool inProgramMemory = false;
  /// A named parameter bound once (gpRtArtifactBindParameter): calls pass
  /// NULL in its place, and it has no storage here.
  bool bound = false;
};

/// Allocates memory for `input` where `info` says the entry takes it and
/// describes it (contiguous, row-major) in a memref; no data moves yet.
Placed place(gpRtProgram *program, const Input &input,
             const gpRtValueInfo &info, bool cudaBackend);

/// Copies `input`'s values into its placed memory.
void upload(gpRtProgram *program, Placed &placed, const Input &input);

/// Frees the memory `place` allocated.
void release(gpRtProgram *program, Placed &placed);

} // namespace gp::run

#endif // GRAPHPART_TOOLS_GPRUN_INPUTS_H
