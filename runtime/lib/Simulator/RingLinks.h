//===- RingLinks.h - The data ring's links as resources ---------*- C++ -*-===//
//
// The data ring joins the cores (positions 0..cores-1) and the memory node
// (arch memory_ring_position) in a bidirectional ring. Each link carries one
// transfer at a time in each direction; a transfer holds every link of its
// path for the same interval (its bytes at the link bandwidth), so core to
// core messages, memory streams and multicasts compete for the links they
// share (docs/isa.md "Timing").
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_SIMULATOR_RINGLINKS_H
#define SPYRE_RUNTIME_SIMULATOR_RINGLINKS_H

#include <algorithm>
#include <cstdint>
#include <vector>

namespace spyre::rt::sim {

class RingLinks {
public:
  RingLinks(uint32_t nodes, uint64_t startPs)
      : nodes_(nodes), freePs_(2 * size_t(nodes), startPs) {}

  /// `hops` links from node `from`, clockwise or not.
  struct Path {
    uint32_t from = 0, hops = 0;
    bool clockwise = true;
  };

  /// The shortest path from `from` to `to` (clockwise on a tie).
  Path shortest(uint32_t from, uint32_t to) const {
    uint32_t forward = (to + nodes_ - from) % nodes_;
    bool clockwise = forward <= nodes_ - forward;
    return Path{from, clockwise ? forward : nodes_ - forward, clockwise};
  }

  /// Holds every link of `path` for `durationPs` from the first instant at
  /// or after `notBefore` when all are free; returns that instant.
  uint64_t reserve(const Path &path, uint64_t notBefore, uint64_t durationPs) {
    uint64_t start = notBefore;
    for (uint32_t h = 0; h < path.hops; ++h)
      start = std::max(start, freePs_[link(path, h)]);
    for (uint32_t h = 0; h < path.hops; ++h)
      freePs_[link(path, h)] = start + durationPs;
    return start;
  }

  uint32_t nodes() const { return nodes_; }

private:
  /// The index of the `hop`-th link of `path`: per direction, the link
  /// leaving each node.
  size_t link(const Path &path, uint32_t hop) const {
    uint32_t node = path.clockwise
                        ? (path.from + hop) % nodes_
                        : (path.from + nodes_ - hop % nodes_) % nodes_;
    return path.clockwise ? node : nodes_ + node;
  }

  uint32_t nodes_;
  std::vector<uint64_t> freePs_;
};

} // namespace spyre::rt::sim

#endif // SPYRE_RUNTIME_SIMULATOR_RINGLINKS_H
