//===- Binding.h - graphs re-bound to inputs that moved ---------*- C++ -*-===//
//
// A captured graph holds the addresses of the partition's input buffers in
// its kernel parameters, copy and memset nodes, and in the results the body
// handed back. Right after a capture the runtime finds every such word (an
// 8-byte value inside an input's reachable range) and remembers it as a
// site: where it is and how far past the input's base it points. A later run
// that passes the input elsewhere writes base + distance into every site
// and replays, instead of capturing again.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_RUNTIME_BINDING_H
#define GRAPHPART_LIB_RUNTIME_BINDING_H

#include "GraphPart/Runtime/GPRuntime.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace gp::rt {

/// A partition input as one run passes it.
struct InputRange {
  uintptr_t base = 0;
  /// Bytes reachable from `base`; -1 when unknown (keyed by address).
  int64_t bytes = 0;
};

/// What a site is, for the binding report.
enum class SiteKind : uint8_t { KernelParameter, CopyAddress, ResultWord };

/// A word in a graph that holds an address inside an input.
struct BindingSite {
  /// The device's index of the launch or node, then which of its
  /// parameters or fields, and the word's byte offset in it.
  uint32_t node = 0;
  uint32_t field = 0;
  uint32_t byteOffset = 0;
  uint32_t input = 0;
  /// The word minus the input's base at capture.
  int64_t distance = 0;
  SiteKind kind = SiteKind::KernelParameter;
};

/// The input whose reachable range holds `address` (the first one, in
/// input order; an empty input holds only its base), or -1.
int64_t owningInput(uintptr_t address, const std::vector<InputRange> &inputs);

/// Appends a site for every 8-byte word at an 8-byte offset of
/// `bytes[0, size)` that holds an address inside an input.
void findSites(const void *bytes, size_t size,
               const std::vector<InputRange> &inputs, SiteKind kind,
               uint32_t node, uint32_t field, std::vector<BindingSite> &sites);

inline void writeWord(void *bytes, uint32_t byteOffset, uintptr_t value) {
  std::memcpy(static_cast<uint8_t *>(bytes) + byteOffset, &value,
              sizeof(value));
}

/// Writes input base + distance into each of `sites` whose input's base
/// in `inputs` differs from `bound` (the bases the sites hold now);
/// `bytesOf(site)` gives the bytes the site's word is in. Returns how many
/// words were written.
template <typename BytesOf>
int64_t rewriteSites(const std::vector<BindingSite> &sites,
                     const std::vector<InputRange> &inputs,
                     const std::vector<uintptr_t> &bound, BytesOf bytesOf) {
  int64_t written = 0;
  for (const BindingSite &site : sites) {
    uintptr_t base = inputs[site.input].base;
    if (base == bound[site.input])
      continue;
    writeWord(bytesOf(site), site.byteOffset, base + site.distance);
    ++written;
  }
  return written;
}

/// How the inputs of one run sit relative to each other, as part of a
/// graph key: each input's group of overlapping inputs (named by its
/// lowest-numbered member) and its distance from that member's base. A
/// graph serves every run with the same placement whatever the addresses,
/// since overlapping inputs then move together; inputs that overlapped at
/// capture and no longer do (or the reverse) need a graph of their own.
/// `addressKeyed` inputs (and all of them when `allAddresses`) add their
/// address, `alignmentKeyed` ones their address modulo 256.
/// `order` holds the inputs by base address from the previous run of the
/// same partition (or anything: it is rebuilt when its size differs) and is
/// left sorted for the next: where few inputs moved (a program's bound
/// parameters never do) sorting it again is linear.
void placementKey(const std::vector<InputRange> &inputs,
                  const std::vector<bool> &alignmentKeyed, bool allAddresses,
                  std::vector<uint32_t> &order, std::vector<int64_t> &key);

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_BINDING_H
