//===- ParseFailureHeap.h - survive the parser's cleanup after an error -*-===//
//
// MLIR 22's parser can write to freed memory while it cleans up after a
// syntax error: a value used before the op that defines it (a forward
// reference), when that op sits in a region whose parse then fails (for
// example on a repeated block label), is freed with the region while the
// earlier use still points at it; destroying the enclosing block then
// unlinks that use from the freed op. glibc's allocator happens to survive
// the write; tcmalloc, which gp-opt links, keeps its free lists in freed
// memory and crashes (SIGSEGV) after the error was already printed.
//
// gp-opt therefore defers every free while it parses: memory released
// during the parse stays allocated until the parse has succeeded, so the
// cleanup after a failed parse writes to live memory, the error is
// reported, and gp-opt exits 1. A successful parse releases the deferred
// memory before any pass runs.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_TOOLS_GPOPT_PARSEFAILUREHEAP_H
#define GRAPHPART_TOOLS_GPOPT_PARSEFAILUREHEAP_H

namespace gp {

/// From now on, free and operator delete record the memory instead of
/// releasing it. Does nothing in builds that cannot replace them (sanitizer
/// builds, which replace them themselves, and non-glibc builds without
/// tcmalloc).
void deferFrees();

/// Releases the memory recorded since deferFrees() and frees normally again.
void releaseDeferredFrees();

} // namespace gp

#endif // GRAPHPART_TOOLS_GPOPT_PARSEFAILUREHEAP_H
