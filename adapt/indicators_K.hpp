// Refinement indicators and the flags they set: what decides, after every adapt.interval steps, which leaves of an
// adaptive forest (adapt/forest.hpp) refine and which sibling groups coarsen. Chosen by name from `indicators`;
// each gives one value per element, in double on either backend (so that the CPU and the GPU flag the same
// elements), and FlagByValue turns values into flags: refine above refine_above, coarsen below coarsen_below.
// SpreadRefinement then widens the refined zone by rings of neighbours, so that a discontinuity moving at most one
// element per step cannot leave the fine zone before the next adaptation. Every pass is a functor for forall;
// the solver launches them (EulerDG::flag_adaptation), and only the flags stay behind, in the forest.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "adapt/forest_K.hpp"
#include "base/registry.hpp"
#include "base/types.hpp"
#include "kernels/backend.hpp"
#include "kernels/basis.hpp"
#include "kernels/dg_K.hpp"
#include "kernels/euler.hpp"

namespace kempe::adapt {

enum class Indicator { density_jump, kxrcf, modal_decay, box };

/// One indicator: its name in a case's adapt.indicator, what its value is, and the thresholds it is used with
/// unless the case sets adapt.refine_above and adapt.coarsen_below.
struct IndicatorEntry {
  Indicator value;
  std::string_view name, description;
  double refine_above, coarsen_below;
};
inline constexpr IndicatorEntry indicators[] = {
    {Indicator::density_jump, "density_jump",
     "the largest normalised jump |a - b| / (|a| + |b|) of adapt.variable's cell averages a, b between the element "
     "and its face neighbours (Lohner's normalised difference, on cell averages); 0.02 is a 4 % jump",
     0.02, 0.005},
    {Indicator::kxrcf, "kxrcf",
     "the KXRCF troubled-cell ratio of Krivodonova, Xin, Remacle, Chevaugeon & Flaherty (2004): the density jump "
     "over the inflow faces against h^((p+1)/2) |inflow| |density|; above 1 near discontinuities, small where the "
     "flow is smooth (adapt.variable is not used)",
     1.0, 0.1},
    {Indicator::modal_decay, "modal_decay",
     "Persson & Peraire (2006): log10 of the share of adapt.variable's L2 norm held by its modes of the highest "
     "degree; near 0 where the element under-resolves, very negative where it is smooth (p >= 1)",
     -3.0, -5.0},
    {Indicator::box, "box",
     "1 for elements whose centroid lies in one of adapt.boxes, 0 elsewhere: refinement where the user knows it is "
     "needed (and for tests)",
     0.5, 0.25},
};
/// The indicator of the given name; std::invalid_argument with the closest known name otherwise.
inline const IndicatorEntry& indicator_from_name(std::string_view name) { return find_by_name("indicator", name, indicators); }

/// The variable an indicator looks at (adapt.variable).
enum class IndicatorVariable { density, pressure, energy };
inline constexpr Named<IndicatorVariable> indicator_variables[] = {
    {IndicatorVariable::density, "density", "density"},
    {IndicatorVariable::pressure, "pressure", "pressure, from the conserved variables at the volume quadrature points"},
    {IndicatorVariable::energy, "energy", "total energy per volume"},
};
inline IndicatorVariable indicator_variable_from_name(std::string_view name) {
  return find_by_name("indicator variable", name, indicator_variables).value;
}

/// An axis-aligned box [x0, x1] x [y0, y1] of the box indicator.
struct Box {
  double x0, y0, x1, y1;
};
inline constexpr int max_boxes = 16;

/// What a run's adaptations follow (a case's adapt: section).
struct AdaptCriteria {
  Indicator indicator = Indicator::density_jump;
  IndicatorVariable variable = IndicatorVariable::density;
  double refine_above = 0.02, coarsen_below = 0.005;
  int buffer = 1;          ///< rings of neighbours refined around each flagged element
  std::vector<Box> boxes;  ///< for Indicator::box, at most max_boxes
};

/// The modal coefficients of adapt.variable on element e (density and energy: the solution's own; pressure: its
/// L2 projection by the degree 2P + 1 volume rule, exact for the orthonormal basis' mass matrix), and from them
/// the cell average ([elements]) and, where `decay` is not null, Persson and Peraire's smoothness value: log10 of
/// sum over degree-P modes of c_m^2 / sum over all modes of c_m^2 (orthonormal modes: shares of the L2 norm).
/// c is the solution [vars][modes][elements]; the tables are the solver's (dg::Tables).
template <int P, class Real>
struct VariableModes {
  index_t num_elements;
  Real gamma;
  IndicatorVariable variable;
  const Real* c;
  dg::Tables<Real> t;
  double* mean;   ///< [elements]
  double* decay;  ///< [elements] or null

  KEMPE_HD void operator()(index_t e) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars, nq = dg::volume_points(P);
    const index_t k = num_elements;
    double modes[nm];
    if (variable == IndicatorVariable::pressure) {
      for (int m = 0; m < nm; ++m) modes[m] = 0;
      for (int q = 0; q < nq; ++q) {
        double u[nv];
        for (int v = 0; v < nv; ++v) {
          u[v] = 0;
          for (int m = 0; m < nm; ++m) u[v] += double(c[(v * nm + m) * k + e]) * double(t.volume_basis[q * nm + m]);
        }
        const double p = euler::pressure(u, double(gamma));
        for (int m = 0; m < nm; ++m) modes[m] += double(t.volume_weight[q]) * double(t.volume_basis[q * nm + m]) * p;
      }
    } else {
      const int v = variable == IndicatorVariable::density ? euler::density : euler::energy;
      for (int m = 0; m < nm; ++m) modes[m] = double(c[(v * nm + m) * k + e]);
    }
    mean[e] = modes[0] * dg::mode0_value;
    if (decay == nullptr) return;
    // The degree-P modes are the last P + 1 (basis.hpp orders them hierarchically by degree).
    double top = 0, all = 0;
    for (int m = 0; m < nm; ++m) {
      all += modes[m] * modes[m];
      if (m >= basis::num_modes(P - 1)) top += modes[m] * modes[m];
    }
    constexpr double least = 1e-30;  // log10 of this (-30) for a constant or a zero field
    const double share = P > 0 && all > 0 ? top / all : 0;
    decay[e] = std::log10(share > least ? share : least);
  }
};

/// Element e's face neighbour number `part` of 6: parts 0-2 across its local faces (the first half's neighbour
/// where an edge is split), 3-5 across the second halves of split edges; no_element where there is none.
KEMPE_HD index_t face_neighbor(const index_t* neighbors, const index_t* half_neighbors, index_t e, int part) {
  if (part < 3) return neighbors[3 * e + part];
  return half_neighbors == nullptr ? no_element : half_neighbors[3 * e + part - 3];
}

/// value[e] = the largest |a - b| / (|a| + |b|) over e's face neighbours (both halves of a split edge) of the
/// cell averages `mean`; 0 with no neighbour.
struct NeighbourJump {
  const index_t* neighbors;       ///< [elements][3] (no_element on the boundary)
  const index_t* half_neighbors;  ///< [elements][3] across a split edge's second half, or null
  const double* mean;             ///< [elements]
  double* value;                  ///< [elements]

  KEMPE_HD void operator()(index_t e) const {
    const double a = mean[e];
    double largest = 0;
    for (int part = 0; part < 6; ++part) {
      const index_t n = face_neighbor(neighbors, half_neighbors, e, part);
      if (n == no_element) continue;
      const double b = mean[n];
      const double scale = std::fabs(a) + std::fabs(b);
      const double jump = scale > 0 ? std::fabs(a - b) / scale : 0;
      largest = jump > largest ? jump : largest;
    }
    value[e] = largest;
  }
};

/// value[e] = 1 where leaf e's centroid lies in one of the boxes, else 0.
struct InBoxes {
  ForestPtrs f;
  int num_boxes;
  Box boxes[max_boxes];
  double* value;  ///< [elements]

  KEMPE_HD void operator()(index_t e) const {
    const index_t* v = f.elem_vertices + 3 * e;
    const double x = (f.x[v[0]] + f.x[v[1]] + f.x[v[2]]) / 3, y = (f.y[v[0]] + f.y[v[1]] + f.y[v[2]]) / 3;
    double inside = 0;
    for (int b = 0; b < num_boxes; ++b)
      if (x >= boxes[b].x0 && x <= boxes[b].x1 && y >= boxes[b].y0 && y <= boxes[b].y1) inside = 1;
    value[e] = inside;
  }
};

/// The forest's flags from the values: refine above refine_above (the forest refines only below its maximum
/// level), coarsen below coarsen_below (a group coarsens only when all four of its leaves ask).
struct FlagByValue {
  const double* value;
  double refine_above, coarsen_below;
  std::uint8_t *refine, *coarsen;  ///< [elements]

  KEMPE_HD void operator()(index_t e) const {
    const bool fine = value[e] > refine_above;
    refine[e] = fine ? 1 : 0;
    coarsen[e] = !fine && value[e] < coarsen_below ? 1 : 0;
  }
};

/// One ring of the buffer zone: `to` flags every element flagged in `from` or next to one (across each face,
/// both halves of a split edge), and such an element no longer coarsens.
struct SpreadRefinement {
  const index_t* neighbors;       ///< [elements][3]
  const index_t* half_neighbors;  ///< [elements][3] or null
  const std::uint8_t* from;       ///< [elements]
  std::uint8_t* to;               ///< [elements]
  std::uint8_t* coarsen;          ///< [elements]

  KEMPE_HD void operator()(index_t e) const {
    bool flagged = from[e] != 0;
    for (int part = 0; part < 6 && !flagged; ++part) {
      const index_t n = face_neighbor(neighbors, half_neighbors, e, part);
      if (n != no_element && from[n] != 0) flagged = true;
    }
    to[e] = flagged ? 1 : 0;
    if (flagged) coarsen[e] = 0;
  }
};

/// to[e] = from[e]: a ring's flags back into the forest's.
struct CopyFlags {
  const std::uint8_t* from;
  std::uint8_t* to;
  KEMPE_HD void operator()(index_t e) const { to[e] = from[e]; }
};

}  // namespace kempe::adapt
