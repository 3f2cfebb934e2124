//===- ParseFailureHeap.cpp - survive the parser's cleanup after an error -===//

#include "ParseFailureHeap.h"

#if defined(GP_DEFER_PARSE_FREES) &&                                           \
    (defined(GP_HAVE_TCMALLOC) || defined(__GLIBC__))

#include <atomic>
#include <cstddef>
#include <mutex>
#include <new>
#include <sys/mman.h>

#ifdef GP_HAVE_TCMALLOC
#include <gperftools/tcmalloc.h>
/// The allocator gp-opt links; every free and delete form ends here.
static void releaseNow(void *pointer) { tc_free(pointer); }
#else
extern "C" void __libc_free(void *);
static void releaseNow(void *pointer) { __libc_free(pointer); }
#endif

namespace {

/// Freed pointers, kept in chunks mapped directly from the system: the
/// record must not allocate from the heap it is deferring for.
struct Chunk {
  static constexpr size_t kBytes = size_t(1) << 20;
  static constexpr size_t kCapacity =
      (kBytes - 2 * sizeof(void *)) / sizeof(void *);
  Chunk *previous;
  size_t count;
  void *pointers[kCapacity];
};
static_assert(sizeof(Chunk) <= Chunk::kBytes);

std::atomic<bool> deferring{false};
std::mutex recordMutex;
Chunk *newestChunk = nullptr;

/// Records `pointer`; false when no chunk could be mapped (the caller then
/// releases it at once, as without deferral).
bool record(void *pointer) {
  std::lock_guard<std::mutex> lock(recordMutex);
  if (!newestChunk || newestChunk->count == Chunk::kCapacity) {
    void *mapped = mmap(nullptr, Chunk::kBytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED)
      return false;
    auto *chunk = static_cast<Chunk *>(mapped);
    chunk->previous = newestChunk;
    chunk->count = 0;
    newestChunk = chunk;
  }
  newestChunk->pointers[newestChunk->count++] = pointer;
  return true;
}

void deferOrRelease(void *pointer) {
  if (!pointer)
    return;
  if (deferring.load(std::memory_order_relaxed) && record(pointer))
    return;
  releaseNow(pointer);
}

} // namespace

void gp::deferFrees() { deferring.store(true, std::memory_order_relaxed); }

void gp::releaseDeferredFrees() {
  deferring.store(false, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(recordMutex);
  while (Chunk *chunk = newestChunk) {
    for (size_t i = 0; i < chunk->count; ++i)
      releaseNow(chunk->pointers[i]);
    newestChunk = chunk->previous;
    munmap(chunk, Chunk::kBytes);
  }
}

// The replacements every library in the process calls (libMLIR included):
// the executable's definitions come first in symbol lookup.
extern "C" void free(void *pointer) noexcept { deferOrRelease(pointer); }
void operator delete(void *pointer) noexcept { deferOrRelease(pointer); }
void operator delete(void *pointer, std::size_t) noexcept {
  deferOrRelease(pointer);
}
void operator delete[](void *pointer) noexcept { deferOrRelease(pointer); }
void operator delete[](void *pointer, std::size_t) noexcept {
  deferOrRelease(pointer);
}

#else

void gp::deferFrees() {}
void gp::releaseDeferredFrees() {}

#endif
