// What an output file shows, computed from the solution without any output library: the solution sampled at
// each element's own nodes (discontinuous, as DG is), the point and cell fields, and VTK's node order for
// high-order triangles. The VTK adapter (vtk_output.hpp) writes it; tests compare it with the solver.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mesh/mesh.hpp"

namespace kempe::output {

/// VTK_LAGRANGE_TRIANGLE's node order for order n >= 1, as lattice points (i, j): the node lies at reference
/// (r, s) = (-1 + 2i/n, -1 + 2j/n) (vertices (-1,-1), (1,-1), (-1,1)). Corners, then the nodes of edges 0-1,
/// 1-2 and 2-0 in that direction, then the interior as a triangle of order n - 3 in the same order (VTK's
/// vtkLagrangeTriangle). (n + 1)(n + 2) / 2 nodes.
std::vector<std::array<int, 2>> lagrange_triangle_lattice(int n);

/// The exact solution at a point: exact(x, y, u) writes the conserved state u[num_vars].
using ExactState = std::function<void(double x, double y, double* u)>;

/// The solution sampled for output. Points are per element (no sharing between elements): cell e has points
/// [e * points_per_cell, (e + 1) * points_per_cell).
struct SampledSolution {
  double time = 0;
  int cell_order = 1;       ///< 1: linear triangles (p <= 1); else Lagrange triangles of this order (= p)
  int points_per_cell = 3;  ///< (cell_order + 1)(cell_order + 2) / 2
  std::vector<double> x, y;                                  ///< [points]
  std::vector<double> density, pressure, mach, entropy;     ///< [points]; entropy: p / density^gamma
  std::vector<double> velocity;                              ///< [points][3] (z = 0)
  /// The exact solution at the same points, where the run compares with one (add_exact_solution); else empty.
  std::vector<double> exact_density, exact_pressure, exact_velocity;  ///< [points], [points], [points][3]
  std::vector<std::int64_t> element_id;                      ///< [cells] the element's number in the mesh file
  std::vector<std::uint8_t> limited;                         ///< [cells] 1 where the slope limiter acted
  std::vector<std::uint8_t> level;  ///< [cells] refinement level on an adapted mesh (mesh.leaf_level), else empty
  std::vector<double> blending;     ///< [cells] subcell shock capturing's finite-volume share (0: pure DG), else empty
  index_t num_cells() const { return static_cast<index_t>(element_id.size()); }
  index_t num_points() const { return static_cast<index_t>(x.size()); }
};

/// Samples c[var][mode][element] (order p, modal, on `mesh`'s triangles) at each element's output nodes:
/// its vertices for p <= 1, the Lagrange nodes of order p otherwise. `limited` may be empty (all 0). The cell
/// field `level` is the mesh's leaf_level where it has one (an adapted mesh: adapt::leaf_elements_mesh).
/// Elements e with subcells[e] != 0 (p >= 1; empty: none), those that bounds on the subcell averages watch, show
/// at each node the polynomial pulled towards the average of the node's subcell (kernels/subcell.hpp: the nodes
/// are the lattice of order p whose median-dual cells the subcells are) just as far as its density, pressure and
/// velocity need to lie within the range of the subcell averages of e and its face neighbours: the bounds hold the
/// averages, while the polynomial they determine may swing beyond them next to a shock. Where it stays in range
/// the polynomial is shown, so a front or a vortex is drawn as the scheme resolves it, not cell by cell.
SampledSolution sample_solution(const Mesh& mesh, int order, double gamma, const std::vector<double>& c,
                                const std::vector<std::uint8_t>& limited, double time,
                                const std::vector<std::uint8_t>& subcells = {});

/// Fills the sampled solution's exact_* fields with `exact` at its points (written to the .vtu beside the
/// solution, so that a plot compares with the solver's own exact solution rather than a copy of it).
void add_exact_solution(SampledSolution& sampled, double gamma, const ExactState& exact);

/// The L2 entropy error against a reference state (the High-Order CFD Workshop's measure for smooth subsonic
/// flows): sqrt( integral over the mesh of ((p / p_ref) (rho_ref / rho)^gamma - 1)^2 / area ), with a
/// quadrature rule exact for degree 2p + 2 on each element.
double entropy_error(const Mesh& mesh, int order, double gamma, const std::vector<double>& c, double rho_ref,
                     double p_ref);

/// The density error against an exact solution, by the same quadrature: L1 = integral of |rho - rho_exact| over
/// the mesh / area (Toro's and the shock-tube literature's measure), L2 = sqrt(integral of the square / area).
struct DensityError {
  double l1 = 0, l2 = 0;
};
DensityError density_error(const Mesh& mesh, int order, const std::vector<double>& c, const ExactState& exact);

}  // namespace kempe::output
