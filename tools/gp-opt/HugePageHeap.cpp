//===- HugePageHeap.cpp - back gp-opt's heap with huge pages --------------===//

#include "HugePageHeap.h"

#ifdef GP_HAVE_TCMALLOC

#include <gperftools/malloc_extension.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sys/mman.h>

namespace {

/// Hands tcmalloc memory carved from 64 MiB regions aligned to 2 MiB and
/// marked MADV_HUGEPAGE. Regions are reserved (MAP_NORESERVE), so untouched
/// parts cost nothing; what tcmalloc later releases it releases with
/// madvise, which works on these regions as on any. If a region cannot be
/// mapped, the default system allocator serves the request.
class HugePageSystemAllocator final : public SysAllocator {
public:
  explicit HugePageSystemAllocator(SysAllocator *fallback)
      : fallback(fallback) {}

  void *Alloc(size_t size, size_t *actualSize, size_t alignment) override {
    std::lock_guard<std::mutex> lock(mutex);
    alignment = alignment < kPageBytes ? kPageBytes : alignment;
    size = roundUp(size, kPageBytes);
    uintptr_t start = roundUp(next, alignment);
    if (next == 0 || start + size > end) {
      if (!mapRegion(size + alignment))
        return fallback ? fallback->Alloc(size, actualSize, alignment)
                        : nullptr;
      start = roundUp(next, alignment);
    }
    next = start + size;
    if (actualSize)
      *actualSize = size;
    return reinterpret_cast<void *>(start);
  }

private:
  static constexpr size_t kPageBytes = 4096;
  static constexpr size_t kHugePageBytes = size_t(2) << 20;
  static constexpr size_t kRegionBytes = size_t(64) << 20;

  static uintptr_t roundUp(uintptr_t value, size_t multiple) {
    return (value + multiple - 1) / multiple * multiple;
  }

  /// Starts a new region of at least `bytes` (the rest of the previous one
  /// is left unused: address space only).
  bool mapRegion(size_t bytes) {
    size_t regionBytes =
        bytes > kRegionBytes ? roundUp(bytes, kHugePageBytes) : kRegionBytes;
    // One huge page more, to align the start.
    void *mapped =
        mmap(nullptr, regionBytes + kHugePageBytes, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapped == MAP_FAILED)
      return false;
    uintptr_t start =
        roundUp(reinterpret_cast<uintptr_t>(mapped), kHugePageBytes);
    // Without transparent huge pages this fails and the region simply
    // uses normal pages.
    (void)madvise(reinterpret_cast<void *>(start), regionBytes, MADV_HUGEPAGE);
    next = start;
    end = start + regionBytes;
    return true;
  }

  SysAllocator *fallback;
  std::mutex mutex;
  uintptr_t next = 0, end = 0;
};

} // namespace

void gp::useHugePageHeap() {
  if (const char *setting = std::getenv("GP_OPT_HUGE_PAGES");
      setting && std::strcmp(setting, "0") == 0)
    return;
  MallocExtension *extension = MallocExtension::instance();
  static HugePageSystemAllocator allocator(extension->GetSystemAllocator());
  extension->SetSystemAllocator(&allocator);
}

#else

void gp::useHugePageHeap() {}

#endif
