// One value of a Runge-Kutta stage, shared by the stage update (solver/numerics/time_integrators.hpp, CombineStage) and the
// elementwise right-hand side that applies the update in the same pass (dg_K.hpp, EvalElementStage): the same
// point function in both, with its multiply-adds explicit (backend.hpp, multiply_add), so that fusing the two
// passes gives the same bits.
#pragma once

#include "kernels/backend.hpp"

namespace kempe::dg {

/// a x + b y + gdt z, in that order. A zero factor adds nothing (not 0 times a value that may be NaN, e.g. a
/// work vector never written yet).
template <class Real>
KEMPE_HD Real stage_value(Real a, Real x, Real b, Real y, Real gdt, Real z) {
  Real v = a != Real(0) ? a * x : Real(0);
  if (b != Real(0)) v = multiply_add(b, y, v);
  if (gdt != Real(0)) v = multiply_add(gdt, z, v);
  return v;
}

}  // namespace kempe::dg
