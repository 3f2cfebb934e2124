//===- HugePageHeap.h - back gp-opt's heap with huge pages ------*- C++ -*-===//
//
// gp-opt's heap grows to hundreds of megabytes on large programs, one 4 KiB
// page fault at a time; under virtualization a fault costs microseconds,
// which added up to a tenth of the compile time of a 100k-op program. With
// tcmalloc, the memory it takes from the system can come from regions
// marked for transparent huge pages instead (madvise(MADV_HUGEPAGE)), so
// that one fault maps 2 MiB.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_TOOLS_GPOPT_HUGEPAGEHEAP_H
#define GRAPHPART_TOOLS_GPOPT_HUGEPAGEHEAP_H

namespace gp {

/// Makes tcmalloc take its memory from huge-page regions. Does nothing when
/// gp-opt is built without tcmalloc, or when GP_OPT_HUGE_PAGES=0 is set in
/// the environment. Call once, early in main.
void useHugePageHeap();

} // namespace gp

#endif // GRAPHPART_TOOLS_GPOPT_HUGEPAGEHEAP_H
