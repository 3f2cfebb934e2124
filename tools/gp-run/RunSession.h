//===- RunSession.h - one loaded artifact and its calls ---------*- C++ -*-===//
//
// gp-run's Session: one loaded artifact and the calls that make one step,
// with their arguments placed in the program's memory, named parameters
// bound once, --rotate's further argument sets, and results brought back
// to the host. Session.cpp runs steps, --check and the report with it.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_TOOLS_GPRUN_RUNSESSION_H
#define GRAPHPART_TOOLS_GPRUN_RUNSESSION_H

#include "ElementType.h"
#include "Inputs.h"
#include "ParameterSource.h"

#include "GraphPart/Runtime/GPRuntime.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace gp::run {

/// One call of an entry point in a step, with its arguments placed.
struct Call {
  int32_t entry = 0;
  gpRtEntryInfo info{};
  std::vector<Placed> args;
  /// --rotate: the arguments placed again, once per further set; a step
  /// uses `args` or one of these in turn.
  std::vector<std::vector<Placed>> rotation;
  std::vector<std::vector<uint8_t>> results;
};

/// One loaded artifact and the calls that make one step (one entry, or a
/// sequence such as forward then backward, on the same program so RNG
/// states pair up).
struct Session {
  gpRtArtifact *artifact = nullptr;
  gpRtProgram *program = nullptr;
  bool cudaBackend = false;
  std::vector<Call> calls;
  /// Steps run so far: with --rotate, which set of arguments is next.
  int64_t turn = 0;
  /// Named parameters are bound once (--parameters, or --weights for a
  /// program that names them) and calls pass NULL for them; otherwise they
  /// are arguments like any other, given with --input.
  bool bindsParameters = false;
  /// The memory the bound parameters live in.
  std::vector<Placed> parameterMemory;
  /// Parameters the runtime bound itself at load (a converted program's
  /// index-error flag): never an input, never read from --parameters.
  std::set<std::string> runtimeBound;

  /// Whether argument `info` is a bound parameter, not a user input.
  bool isBound(const gpRtValueInfo &info) const;

  void load(const std::string &path, gpRtBackend backend, int32_t device,
            const std::vector<std::string> &entryNames);
  /// Every call's user inputs' descriptions (its arguments but the bound
  /// parameters), in order.
  std::vector<gpRtValueInfo> argInfos() const;
  /// Binds every parameter of the program, by name, to memory holding its
  /// values from `source`, once; dies naming the parameter and the file
  /// when one is missing or of another element type or shape. Returns the
  /// names bound.
  std::set<std::string> bindParameters(ParameterSource &source,
                                       const std::string &option);
  std::string entryNames() const;
  void place(const std::vector<Input> &inputs);
  /// Places every argument anew, at addresses other than the current ones
  /// (the new memory is taken before the old is freed).
  void movePlaces(const std::vector<Input> &inputs);
  /// Places and uploads `sets - 1` more copies of the arguments, each at
  /// addresses of its own, for steps to use in turn.
  void placeRotation(int64_t sets, const std::vector<Input> &inputs);
  void releaseRotation();
  void upload(const std::vector<Input> &inputs);
  /// Runs one step and returns the microseconds its calls took; with
  /// `fetched`, brings each call's results back right after it (a later
  /// call of the same entry reuses their memory), outside the timing.
  double step(std::vector<Array> *fetched = nullptr);
  ~Session();
};

} // namespace gp::run

#endif // GRAPHPART_TOOLS_GPRUN_RUNSESSION_H
