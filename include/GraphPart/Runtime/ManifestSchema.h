//===- ManifestSchema.h - the manifest's words, defined once ----*- C++ -*-===//
//
// gp-compile writes a manifest into every artifact as `gp_manifest`
// (lib/Conversion/GPToRuntime: Manifest.cpp, EntryPoints.cpp) and the
// runtime reads it when it loads or inspects one (lib/Runtime: Manifest.cpp,
// SizeClasses.cpp, IndexErrors.cpp). This header is the one definition of
// the words both sides spell, so that they cannot drift apart; it needs
// nothing but the C++ standard library, as the runtime links no LLVM. One
// line each, the key first:
//
//   graphpart-artifact 2
//   target host|cuda
//   arena <bytes>            device arena (all functions' regions)
//   host-arena <bytes>
//   generators <n>
//   seed <n>
//   device <n>               the cuda device the program names
//   warmup-runs <n>          policy defaults (the environment overrides
//   capture-sizes <list|->   capture sizes, the shape warning limit and
//   shape-warning-limit <n>  or-error, as when compiling afresh)
//   or-error 0|1
//   graph-cache-capacity <n> (only when not the default, 64)
//   partition <index> capturable|eager <shape-key length> <reasons|->
//   extern <name> capturable|unsafe [<mutated operands>] [<result aliases,
//          - when fresh>] <location>   what the IR states of an extern
//   entry <name> <#args> <#results>
//   arg|result memref <element> <rank> <dims, ? when dynamic> <device>
//          [strided]            (without it: row-major, checked per call)
//          [parameter <name>]   (arguments only: a named parameter, bound
//                                once by name; see Parameters.cpp)
//   arg|result index
//   size <name> <fixed|?> <members> pad [<max>]|nopad <reason>
//          a size class of the entry (after its values;
//          lib/Runtime/Padding.cpp): members `a<i>.<d>` (argument i's dimension
//          d), `a<i>` (index argument i), `r<j>.<d>` (result j's dimension d),
//          `r<j>` (index result j), comma-separated, checked equal at every
//          call; `pad`: calls may be padded along it to the capture sizes
//   check <n> <text>         the entry's run-time index check n (from 1):
//                            a set index-error flag names it (IndexErrors.cpp)
//   initial <name> <hex>     the initial bytes of state the runtime keeps
//                            (InitialValues.cpp)
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_RUNTIME_MANIFESTSCHEMA_H
#define GRAPHPART_RUNTIME_MANIFESTSCHEMA_H

#include <string_view>

namespace gp::manifest {

//===----------------------------------------------------------------------===//
// The format
//===----------------------------------------------------------------------===//

/// The first word of the first line, whatever the version.
inline constexpr const char *kFormatName = "graphpart-artifact";
/// The version written and read: 2 calls externs with their argument types
/// (extern ABI 2); a runtime refuses any other.
inline constexpr int kFormatVersion = 2;
/// The first line, without its line break.
inline constexpr const char *kHeader = "graphpart-artifact 2";

// The header is the name and the version (one digit), so that the runtime
// can tell another version from no manifest at all.
static_assert(
    [] {
      std::string_view name = kFormatName, header = kHeader;
      return header.size() == name.size() + 2 &&
             header.substr(0, name.size()) == name &&
             header[name.size()] == ' ' &&
             header.back() == '0' + kFormatVersion;
    }(),
    "kHeader must be kFormatName, a space and kFormatVersion");

//===----------------------------------------------------------------------===//
// Line keys: the program
//===----------------------------------------------------------------------===//

/// `target host|cuda`: the backend the artifact was compiled for.
inline constexpr const char *kTarget = "target";
/// `arena <bytes>`: the device arena all functions' regions share.
inline constexpr const char *kArena = "arena";
/// `host-arena <bytes>`: the host arena, likewise.
inline constexpr const char *kHostArena = "host-arena";
/// `generators <n>`: the random generators the program uses.
inline constexpr const char *kGenerators = "generators";
/// `seed <n>`: the program's random seed.
inline constexpr const char *kSeed = "seed";
/// `device <n>`: the cuda device the program's buffers name.
inline constexpr const char *kDevice = "device";
/// `warmup-runs <n>`: default eager runs per shape before capture.
inline constexpr const char *kWarmupRuns = "warmup-runs";
/// `capture-sizes <list|->`: default capture sizes (CaptureSizes.h syntax).
inline constexpr const char *kCaptureSizes = "capture-sizes";
/// `shape-warning-limit <n>`: default distinct-shape warning limit.
inline constexpr const char *kShapeWarningLimit = "shape-warning-limit";
/// `or-error 0|1`: whether going past that limit fails the call.
inline constexpr const char *kOrError = "or-error";
/// `graph-cache-capacity <n>`: default recorded keys per partition; written
/// only when not the runtime's default, so older artifacts read the same.
inline constexpr const char *kGraphCacheCapacity = "graph-cache-capacity";
/// `partition <index> capturable|eager <shape-key length> <reasons|->`.
inline constexpr const char *kPartition = "partition";
/// `extern <name> capturable|unsafe [<mutated>] [<aliases>] <location>`.
inline constexpr const char *kExtern = "extern";
/// `initial <name> <hex>`: the initial bytes of state the runtime keeps.
inline constexpr const char *kInitial = "initial";

//===----------------------------------------------------------------------===//
// Line keys: an entry (the lines after its `entry` line are its own)
//===----------------------------------------------------------------------===//

/// `entry <name> <#args> <#results>`: starts an entry's lines.
inline constexpr const char *kEntry = "entry";
/// `arg <value>`: the entry's next argument.
inline constexpr const char *kArg = "arg";
/// `result <value>`: the entry's next result.
inline constexpr const char *kResult = "result";
/// `size <name> <fixed|?> <members> pad [<max>]|nopad <reason>`.
inline constexpr const char *kSize = "size";
/// `check <n> <text>`: the entry's run-time index check n, from 1.
inline constexpr const char *kCheck = "check";

//===----------------------------------------------------------------------===//
// Words within lines
//===----------------------------------------------------------------------===//

/// `target host`: the host backend.
inline constexpr const char *kTargetHost = "host";
/// `target cuda`: the cuda backend.
inline constexpr const char *kTargetCuda = "cuda";
/// A partition or an extern that may be recorded into a cuda graph.
inline constexpr const char *kCapturable = "capturable";
/// A partition that always runs eagerly.
inline constexpr const char *kEager = "eager";
/// An extern that must not be recorded into a cuda graph.
inline constexpr const char *kUnsafe = "unsafe";
/// An empty capture-size list or reason list.
inline constexpr const char *kNone = "-";
/// A dimension or a size class's size not known until a call.
inline constexpr const char *kDynamic = "?";
/// `arg|result memref <element> <rank> <dims> <device> ...`: a buffer.
inline constexpr const char *kMemref = "memref";
/// `arg|result index`: an index value.
inline constexpr const char *kIndex = "index";
/// After a buffer's device: its layout takes strides (else row-major).
inline constexpr const char *kStrided = "strided";
/// `parameter <name>`, last on an argument: a named parameter.
inline constexpr const char *kParameter = "parameter";
/// A size class's `pad [<max>]`: calls may be padded along it.
inline constexpr const char *kPad = "pad";
/// A size class's `nopad <reason>`: calls are never padded along it.
inline constexpr const char *kNoPad = "nopad";
/// A size-class member `a<i>[.<d>]`: argument i (its dimension d).
inline constexpr char kArgumentMember = 'a';
/// A size-class member `r<j>[.<d>]`: result j (its dimension d).
inline constexpr char kResultMember = 'r';

/// The parameter (one i64) a program's index checks write the number of a
/// failed `check` into; the runtime binds it itself (GPDialect.td's
/// getIndexErrorsParameterName, checked equal where the compiler writes
/// checks).
inline constexpr const char *kIndexErrorsParameter = "graphpart.index_errors";

} // namespace gp::manifest

#endif // GRAPHPART_RUNTIME_MANIFESTSCHEMA_H
