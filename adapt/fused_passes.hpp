// Independent passes of an adaptation run as one launch on the GPU (adapt/forest.cpp, adapt/dg_tables.cpp).
#pragma once

#include "base/types.hpp"
#include "kernels/backend.hpp"

namespace kempe::adapt {

/// Two independent passes as one: f over [0, n) and g over [0, m), neither reading what the other writes.
template <class F, class G>
struct BothPasses {
  F f;
  G g;
  index_t n, m;
  KEMPE_HD void operator()(index_t i) const {
    if (i < n) f(i);
    if (i < m) g(i);
  }
};

/// f over [0, n) and g over [0, m), independent passes: one launch on the GPU, where an adaptation's small meshes
/// make each launch's fixed cost (a few microseconds) the larger part of a pass; two passes on the CPU, where each
/// then streams through its own arrays.
template <class F, class G>
void forall_both(Backend backend, index_t n, const F& f, index_t m, const G& g) {
  if (backend == Backend::cuda) {
    forall(backend, n > m ? n : m, BothPasses<F, G>{f, g, n, m});
    return;
  }
  forall(backend, n, f);
  forall(backend, m, g);
}

/// Three independent passes as forall_both: one launch on the GPU, three passes on the CPU.
template <class F, class G, class H>
void forall_three(Backend backend, index_t n, const F& f, index_t m, const G& g, index_t k, const H& h) {
  if (backend == Backend::cuda) {
    const index_t nm = n > m ? n : m;
    forall_both(backend, nm, BothPasses<F, G>{f, g, n, m}, k, h);
    return;
  }
  forall(backend, n, f);
  forall(backend, m, g);
  forall(backend, k, h);
}

}  // namespace kempe::adapt
