// Carries a DG solution over an adaptation (adapt/forest.hpp: AdaptMap) with the fixed child matrices of
// kernels/child_transfer.hpp: one work item per old leaf, which writes its own new leaves only (a kept leaf
// its copy, a refined leaf its four children, the first leaf of a coarsened group the parent), so the scatter
// has no races and needs no atomics.
#pragma once

#include "adapt/forest.hpp"
#include "kernels/basis.hpp"
#include "kernels/euler.hpp"

namespace kempe::adapt {

/// from[var][mode][old leaves] -> to[var][mode][new leaves] at order P.
template <int P, class Real>
struct TransferSolution {
  AdaptMap map;
  const Real* prolongation;  ///< [4][modes][modes] (ChildTransfer)
  const Real* restriction;   ///< [4][modes][modes]
  const Real* from;
  Real* to;

  KEMPE_HD void operator()(index_t e) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
    const index_t ko = map.old_elements, kn = map.new_elements;
    const int d = map.delta[e];
    const index_t m = map.offset[e];
    if (d == 0) {
      for (int vm = 0; vm < nv * nm; ++vm) to[vm * kn + m] = from[vm * ko + e];
      return;
    }
    if (d > 0) {
      for (int v = 0; v < nv; ++v) {
        Real parent[nm];
        for (int j = 0; j < nm; ++j) parent[j] = from[(v * nm + j) * ko + e];
        for (int c = 0; c < 4; ++c)
          for (int i = 0; i < nm; ++i) {
            const Real* row = prolongation + (c * nm + i) * nm;
            Real sum = Real(0);
            for (int j = 0; j < nm; ++j) sum += row[j] * parent[j];
            to[(v * nm + i) * kn + m + c] = sum;
          }
      }
      return;
    }
    // The group's first leaf makes the parent from all four.
    if (child_number(map.old_path[e], map.old_level[e]) != 0) return;
    for (int v = 0; v < nv; ++v)
      for (int i = 0; i < nm; ++i) {
        Real sum = Real(0);
        for (int c = 0; c < 4; ++c) {
          const Real* row = restriction + (c * nm + i) * nm;
          for (int j = 0; j < nm; ++j) sum += row[j] * from[(v * nm + j) * ko + e + c];
        }
        to[(v * nm + i) * kn + m] = sum;
      }
  }
};

/// Runs `op` (a point function of a new leaf) on the new leaves that one old leaf's transfer made: its four
/// children where it refined, the parent where it is the first leaf of a coarsened group; a kept leaf's copy is
/// skipped (it is the state a step left). One work item per old leaf, as TransferSolution, so each new leaf is
/// visited once and only by the item that wrote it.
template <class Op>
struct EachMadeLeaf {
  AdaptMap map;
  Op op;

  KEMPE_HD void operator()(index_t e) const {
    const int d = map.delta[e];
    const index_t m = map.offset[e];
    if (d > 0) {
      for (int c = 0; c < 4; ++c) op(m + c);
    } else if (d < 0 && child_number(map.old_path[e], map.old_level[e]) == 0) {
      op(m);
    }
  }
};

}  // namespace kempe::adapt
