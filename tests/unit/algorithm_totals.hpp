// The totals of kernels/algorithms.hpp's scans and reductions left in a backend's memory, formed the same way on
// either backend, for the CPU test (against the standard library) and the GPU test (against the CPU).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/algorithms.hpp"
#include "kernels/buffer.hpp"

namespace kempe::test {

struct ValueAt {
  const index_t* values;
  KEMPE_HD index_t operator()(index_t i) const { return values[i]; }
};

/// A sum and a maximum in one reduction (reduce over a struct, as the adaptation's check forms its figures).
struct SumAndMost {
  std::int64_t sum, most;
};
struct CombineSumAndMost {
  KEMPE_HD SumAndMost operator()(const SumAndMost& a, const SumAndMost& b) const {
    return {a.sum + b.sum, a.most > b.most ? a.most : b.most};
  }
};
struct SumAndMostAt {
  const index_t* values;
  KEMPE_HD SumAndMost operator()(index_t i) const { return {values[i], values[i]}; }
};

/// Keeps the items whose value is at least 3 (select_if's predicate).
struct AtLeastThree {
  const index_t* values;
  KEMPE_HD bool operator()(index_t i) const { return values[i] >= 3; }
};

/// What one backend gives for `values`: the exclusive scan into another array and in place, the values
/// [scan total, in-place scan total, sum into a slot, reduce's sum, reduce's maximum (-7 when empty), returned sum],
/// and the items select_if keeps (AtLeastThree) as its count says.
struct AlgorithmTotals {
  std::vector<index_t> scanned, scanned_in_place;
  std::vector<std::int64_t> slots;
  std::vector<index_t> selected;
};

inline AlgorithmTotals algorithm_totals(Backend backend, const std::vector<index_t>& values) {
  const index_t n = static_cast<index_t>(values.size());
  RawArray<index_t> in(backend, values, "scan input"), out(backend, values.size() + 1, "scan output");
  RawArray<index_t> in_place(backend, values, "in-place scan");
  RawArray<std::int64_t> slots(backend, std::vector<std::int64_t>(3, -1), "totals");
  RawArray<SumAndMost> both(backend, std::vector<SumAndMost>(1, SumAndMost{-1, -1}), "sum and maximum");
  exclusive_scan(backend, in.data(), n, out.data(), slots.data());
  exclusive_scan(backend, in_place.data(), n, in_place.data(), slots.data() + 1);
  sum(backend, n, ValueAt{in.data()}, slots.data() + 2);
  reduce(backend, n, SumAndMostAt{in.data()}, CombineSumAndMost{}, SumAndMost{0, -7}, both.data());
  AlgorithmTotals t;
  t.slots = read_totals(backend, slots.data(), 3);
  const SumAndMost s = both.to_host(1)[0];
  t.slots.push_back(s.sum);
  t.slots.push_back(s.most);
  t.slots.push_back(sum(backend, n, ValueAt{in.data()}));
  t.scanned = out.to_host(values.size());
  t.scanned_in_place = in_place.to_host(values.size());
  // The selection into a list filled with -1 beforehand, in storage sized beforehand (as a recorded step does).
  RawArray<index_t> list(backend, std::vector<index_t>(values.size() + 1, -1), "selection"), count(backend, std::vector<index_t>(1, -1), "count");
  RawArray<char> scratch(backend, std::max<std::size_t>(select_scratch_bytes(backend, n, AtLeastThree{in.data()}), 1), "selection storage");
  select_if(backend, n, AtLeastThree{in.data()}, list.data(), count.data(), scratch.data(), scratch.size());
  const index_t kept = count.to_host(1)[0];
  t.selected = list.to_host(values.size() + 1);
  t.selected.resize(std::size_t(kept < 0 ? 0 : kept));
  return t;
}

}  // namespace kempe::test
