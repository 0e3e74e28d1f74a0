// Made-up elements for the DG kernels' tests (CPU and GPU): admissible coefficients and random affine maps. The
// kernels need no consistent mesh to be compared with themselves or across backends.
#pragma once

#include <cstddef>
#include <random>
#include <vector>

#include "base/types.hpp"
#include "kernels/basis.hpp"
#include "kernels/euler.hpp"

namespace kempe::test {

/// n elements of order P: coefficients [vars][modes][elements] whose cell averages of density and energy lie well
/// above the perturbations, and each element's Jacobian determinant and inverse map entries.
struct RandomElements {
  std::vector<double> c, jacobian, dr_dx, dr_dy, ds_dx, ds_dy;
};

template <int P>
RandomElements random_elements(index_t n, std::mt19937& rng) {
  constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
  std::uniform_real_distribution<double> unit(-1, 1), positive(0.5, 1.5);
  RandomElements r;
  r.c.resize(std::size_t(nv) * nm * n);
  for (int v = 0; v < nv; ++v)
    for (int m = 0; m < nm; ++m)
      for (index_t e = 0; e < n; ++e)
        r.c[(std::size_t(v) * nm + m) * n + e] = m == 0 ? (v == 0 ? 1.5 : v == 3 ? 4.0 : 0.3) * positive(rng) : 0.02 * unit(rng);
  for (auto* a : {&r.jacobian, &r.dr_dx, &r.dr_dy, &r.ds_dx, &r.ds_dy}) a->resize(n);
  for (index_t e = 0; e < n; ++e) {
    r.jacobian[e] = positive(rng);
    r.dr_dx[e] = unit(rng), r.dr_dy[e] = unit(rng), r.ds_dx[e] = unit(rng), r.ds_dy[e] = unit(rng);
  }
  return r;
}

}  // namespace kempe::test
