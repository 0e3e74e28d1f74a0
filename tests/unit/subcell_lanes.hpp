// What the tests of the bounded blend's CPU lanes share (tests/unit/test_subcell.cpp on a conforming mesh,
// tests/unit/test_adapt_dg.cpp beside hanging faces).
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "kernels/algorithms.hpp"
#include "kernels/backend.hpp"

namespace kempe::test {

/// The bounded blend's two passes (a SubcellBoundedBlend that blend(rhs, factor, rates) makes) over the listed
/// elements, once through the CPU's lanes (OverList: SubcellBoundedBlend::lanes_of) and once one element at a
/// time, from the same rates and shares: the pieces' shares and the rates must be the same bit for bit. Leaves
/// the one-element path's shares in `factor` and its rates in `rhs`.
template <class Blend, class MakeBlend>
void expect_lanes_as_single_elements(const std::vector<index_t>& list, std::vector<double>& rhs, std::vector<double>& factor,
                                     MakeBlend&& blend, int p) {
  const index_t count = index_t(list.size());
  std::vector<double> rhs_lanes = rhs, factor_lanes = factor;
  for (const bool rates : {false, true}) {
    forall(Backend::cpu, count, OverList<Blend>{list.data(), &count, blend(rhs_lanes, factor_lanes, rates)});
    const Blend one = blend(rhs, factor, rates);
    for (const index_t e : list) one(e);
    for (std::size_t i = 0; i < factor.size(); ++i) ASSERT_EQ(factor_lanes[i], factor[i]) << "p = " << p << ", share " << i;
    for (std::size_t i = 0; i < rhs.size(); ++i) ASSERT_EQ(rhs_lanes[i], rhs[i]) << "p = " << p << ", value " << i;
  }
}

}  // namespace kempe::test
