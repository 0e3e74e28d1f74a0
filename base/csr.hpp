// Compressed sparse row tables (element graph, vertex-to-element lists, color ranges), built by one routine.
#pragma once

#include <cstddef>
#include <vector>

#include "base/types.hpp"

namespace kempe {

/// Row r holds values[begin[r] .. begin[r + 1]); begin has rows + 1 entries.
struct Csr {
  std::vector<index_t> begin, values;
  index_t size(index_t row) const { return begin[row + 1] - begin[row]; }
};

/// The offsets of a CSR table of `rows` rows: count(add) calls add(row) once for every entry of the table.
template <class Count>
std::vector<index_t> csr_offsets(index_t rows, Count&& count) {
  std::vector<index_t> begin(std::size_t(rows) + 1, 0);
  count([&begin](index_t row) { ++begin[std::size_t(row) + 1]; });
  for (std::size_t r = 1; r < begin.size(); ++r) begin[r] += begin[r - 1];
  return begin;
}

/// The CSR table of `rows` rows: entries(add) calls add(row, value) for every entry, the same sequence each
/// time it is called (twice: to count, then to fill). A row's values keep the order in which they came.
template <class Entries>
Csr build_csr(index_t rows, Entries&& entries) {
  Csr table;
  table.begin = csr_offsets(rows, [&entries](auto&& add) { entries([&add](index_t row, index_t) { add(row); }); });
  table.values.resize(std::size_t(table.begin[rows]));
  std::vector<index_t> fill(table.begin.begin(), table.begin.end() - 1);
  entries([&](index_t row, index_t value) { table.values[std::size_t(fill[row]++)] = value; });
  return table;
}

}  // namespace kempe
