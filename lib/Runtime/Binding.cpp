//===- Binding.cpp - graphs re-bound to inputs that moved -----------------===//
//
// Owns what both backends share in re-binding graphs to moved inputs: which
// input an address falls in, finding the words of a parameter or result
// block that hold input addresses, and the placement part of graph keys.
//
//===----------------------------------------------------------------------===//

#include "Binding.h"

#include <algorithm>
#include <numeric>

using namespace gp::rt;

int64_t gp::rt::owningInput(uintptr_t address,
                            const std::vector<InputRange> &inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const InputRange &input = inputs[i];
    if (input.bytes < 0 || input.base == 0)
      continue;
    if (address == input.base ||
        (address > input.base &&
         address - input.base < static_cast<uint64_t>(input.bytes)))
      return static_cast<int64_t>(i);
  }
  return -1;
}

void gp::rt::findSites(const void *bytes, size_t size,
                       const std::vector<InputRange> &inputs, SiteKind kind,
                       uint32_t node, uint32_t field,
                       std::vector<BindingSite> &sites) {
  const uint8_t *data = static_cast<const uint8_t *>(bytes);
  for (size_t offset = 0; offset + sizeof(uintptr_t) <= size;
       offset += sizeof(uintptr_t)) {
    uintptr_t word;
    std::memcpy(&word, data + offset, sizeof(word));
    int64_t input = owningInput(word, inputs);
    if (input < 0)
      continue;
    BindingSite site;
    site.node = node;
    site.field = field;
    site.byteOffset = static_cast<uint32_t>(offset);
    site.input = static_cast<uint32_t>(input);
    site.distance = static_cast<int64_t>(word - inputs[input].base);
    site.kind = kind;
    sites.push_back(site);
  }
}

void gp::rt::placementKey(const std::vector<InputRange> &inputs,
                          const std::vector<bool> &alignmentKeyed,
                          bool allAddresses, std::vector<uint32_t> &order,
                          std::vector<int64_t> &key) {
  size_t n = inputs.size();
  key.assign(2 * n, 0);
  // Inputs by base; a sweep groups those whose ranges overlap (an empty
  // input counts as one byte, so two empty inputs at one address group).
  // This runs on every replay: insertion sort from the last run's order
  // costs one pass when nothing moved, a few shifts when one input did.
  auto byBase = [&](uint32_t a, uint32_t b) {
    return inputs[a].base < inputs[b].base;
  };
  // Many inputs moved (shifts past a few per input): a full sort instead.
  size_t shifts = 0, shiftLimit = 8 * n + 64;
  if (order.size() == n) {
    for (size_t i = 1; i < n && shifts <= shiftLimit; ++i) {
      uint32_t moving = order[i];
      size_t j = i;
      for (; j > 0 && byBase(moving, order[j - 1]); --j, ++shifts)
        order[j] = order[j - 1];
      order[j] = moving;
    }
  }
  if (order.size() != n || shifts > shiftLimit) {
    order.resize(n);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), byBase);
  }
  auto end = [&](uint32_t i) {
    return inputs[i].base +
           static_cast<uintptr_t>(std::max<int64_t>(inputs[i].bytes, 1));
  };
  size_t first = 0;
  while (first < n) {
    size_t last = first + 1;
    uintptr_t groupEnd = end(order[first]);
    while (last < n && inputs[order[last]].base < groupEnd) {
      groupEnd = std::max(groupEnd, end(order[last]));
      ++last;
    }
    uint32_t leader = order[first];
    for (size_t k = first; k < last; ++k)
      leader = std::min(leader, order[k]);
    for (size_t k = first; k < last; ++k) {
      uint32_t i = order[k];
      key[2 * i] = leader;
      key[2 * i + 1] =
          static_cast<int64_t>(inputs[i].base - inputs[leader].base);
    }
    first = last;
  }
  for (size_t i = 0; i < n; ++i) {
    if (allAddresses || inputs[i].bytes < 0)
      key.push_back(static_cast<int64_t>(inputs[i].base));
    else if (i < alignmentKeyed.size() && alignmentKeyed[i])
      key.push_back(static_cast<int64_t>(inputs[i].base % 256));
    else
      key.push_back(-1);
  }
}
