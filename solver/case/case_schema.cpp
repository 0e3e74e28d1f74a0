// The case-file schema table (see case_schema.hpp).
#include "solver/case/case_schema.hpp"

#include <algorithm>
#include <cstdio>

#include "adapt/indicators_K.hpp"
#include "base/registry.hpp"
#include "coloring/coloring.hpp"
#include "coloring/reorder.hpp"
#include "kernels/boundary_K.hpp"
#include "kernels/dg_K.hpp"
#include "kernels/euler.hpp"
#include "kernels/limiter_K.hpp"
#include "kernels/subcell_K.hpp"
#include "solver/numerics/time_integrators.hpp"

namespace kempe::cases {
namespace {

template <class Table>
std::vector<std::string_view> names_of(const Table& table) {
  std::vector<std::string_view> names;
  for (const auto& entry : table) names.push_back(entry.name);
  return names;
}

std::vector<std::string_view> flux_names() { return names_of(euler::fluxes); }
std::vector<std::string_view> limiter_names() { return names_of(dg::limiters); }
std::vector<std::string_view> shock_capturing_names() { return names_of(dg::shock_capturings); }
std::vector<std::string_view> repair_reach_names() { return names_of(dg::repair_reaches); }
std::vector<std::string_view> strategy_names() { return names_of(dg::strategies); }
std::vector<std::string_view> integrator_names() { return names_of(dg::integrators); }
/// The kernels' conditions, and `periodic` (set up on the mesh: the group's faces become interior faces).
std::vector<std::string_view> condition_names() {
  std::vector<std::string_view> names = names_of(bc::kinds);
  names.push_back("periodic");
  return names;
}
std::vector<std::string_view> indicator_names() { return names_of(adapt::indicators); }
std::vector<std::string_view> indicator_variable_names() { return names_of(adapt::indicator_variables); }
std::vector<std::string_view> function_names() { return names_of(bc::state_functions); }
std::vector<std::string_view> coloring_names() { return names_of(coloring_algorithms()); }
/// `auto` and the orderings (auto: the backend's faster one, chosen by `kempe run`: case_ordering in
/// solver/cli/run_command.cpp).
std::vector<std::string_view> ordering_names() {
  std::vector<std::string_view> names{"auto"};
  for (const std::string_view name : names_of(orderings())) names.push_back(name);
  return names;
}
/// The point fields an output can hold (solver/output/output.hpp).
std::vector<std::string_view> field_names() { return {"density", "velocity", "pressure", "mach", "entropy"}; }
std::vector<std::string_view> generator_names() { return {"rectangle"}; }
std::vector<std::string_view> precision_names() { return {"double", "float"}; }
std::vector<std::string_view> backend_names() { return {"auto", "cpu", "cuda"}; }
/// An initial state: a named function, or `uniform` (initial.state).
std::vector<std::string_view> initial_names() {
  std::vector<std::string_view> names{"uniform", "expression"};
  for (const auto& f : bc::state_functions) names.push_back(f.name);
  return names;
}

using T = ValueType;
constexpr double huge = 1e300;

const std::vector<Setting> table = {
    {"mesh.file", T::text, "",
     "the mesh: a Gmsh .msh or .geo file, or a .kmesh; relative to the case file (or give mesh.generator)", nullptr,
     -huge, huge, true},
    {"mesh.generator", T::choice, "",
     "a built-in mesh instead of mesh.file: `rectangle`, [0, mesh.width] x [0, mesh.height] in about mesh.elements "
     "triangles, boundary groups left, right, bottom, top",
     generator_names, -huge, huge, true},
    {"mesh.width", T::real, "1", "the generated rectangle's width", nullptr, 1e-12, huge},
    {"mesh.height", T::real, "1", "the generated rectangle's height", nullptr, 1e-12, huge},
    {"mesh.elements", T::integer, "10000", "about how many triangles the generator makes", nullptr, 2, 1e9},
    {"mesh.size", T::real, "0", "element size for a .geo file (0: the sizes the .geo file sets)", nullptr, 0, huge},
    {"mesh.coloring", T::choice, "kempe", "face coloring algorithm", coloring_names},
    {"mesh.ordering", T::choice, "auto",
     "element and face ordering (auto: rcm on the CPU backend, hilbert on the GPU, each the faster there on "
     "unstructured meshes)",
     ordering_names},
    {"mesh.seed", T::integer, "1", "seed of the coloring and of a generated mesh (results are reproducible for a seed)",
     nullptr, 0, 4294967295.0},
    {"physics.gamma", T::real, "1.4", "ratio of specific heats", nullptr, 1.0000001, 3},
    {"initial.function", T::choice, "",
     "initial state: a named function of (x, y), uniform (then initial.state) or expression (then initial.density, ...)",
     initial_names},
    {"initial.state", T::real_list, "", "the uniform initial state [density, velocity x, velocity y, pressure]",
     nullptr, -huge, huge, true, 4},
    {"initial.density", T::text, "", "for `expression`: the density as an expression in x and y (muparser syntax)",
     nullptr, -huge, huge, true},
    {"initial.velocity_x", T::text, "", "for `expression`: the x velocity as an expression in x and y", nullptr, -huge,
     huge, true},
    {"initial.velocity_y", T::text, "", "for `expression`: the y velocity as an expression in x and y", nullptr, -huge,
     huge, true},
    {"initial.pressure", T::text, "", "for `expression`: the pressure as an expression in x and y", nullptr, -huge, huge,
     true},
    {"boundaries.*.condition", T::choice, "", "the condition of the mesh's boundary group * (every group needs one)",
     condition_names},
    {"boundaries.*.state", T::real_list, "",
     "the outside state [density, velocity x, velocity y, pressure] of an inflow, outflow or far-field group",
     nullptr, -huge, huge, true, 4},
    {"boundaries.*.function", T::choice, "", "the named function of (x, y, t) of a `function` group", function_names,
     -huge, huge, true},
    {"boundaries.*.partner", T::text, "",
     "for `periodic`: the group this one is joined to (also `periodic`); the faces are matched by the translation "
     "between the two groups' centres",
     nullptr, -huge, huge, true},
    {"solver.order", T::integer, "1", "polynomial order p", nullptr, 0, 5},
    {"solver.flux", T::choice, "hllc", "numerical flux (approximate Riemann solver)", flux_names},
    {"solver.limiter", T::choice, "none", "slope limiter", limiter_names},
    {"solver.shock_capturing", T::choice, "none",
     "shock capturing in the right-hand side: `subcell` blends each element's DG right-hand side with finite "
     "volumes on its subcells (as many as modes), by the share Hennemann et al.'s modal indicator gives (combine "
     "with `limiter: none` and the positivity limiter)",
     shock_capturing_names},
    {"solver.subcell_order", T::integer, "1",
     "the order of the subcell finite volumes under `shock_capturing: subcell`: 1 (each subcell's mean on its side "
     "of every flux) or 2 (the DG solution at the subcell face, moved from the mean by at most half the way to "
     "the neighbouring subcell's; sharper fronts, with a larger default share at p = 2)",
     nullptr, 1, 2},
    {"solver.blending_max", T::real, "0",
     "the largest finite-volume share of an element under `shock_capturing: subcell`; 0: the default for the order "
     "and subcell order (first-order subcells: 0.1 at p <= 2, 0.15 at p = 3, 0.25 at p >= 4; second-order: 0.1 "
     "at p = 1, 0.4 at p = 2, 0.5 at p >= 3: dg::default_blending_max)",
     nullptr, 0, 1},
    {"solver.subcell_bounds", T::boolean, "false",
     "under `shock_capturing: subcell` with first-order subcells: bound the subcell averages. In the troubled "
     "cells and around those that blend, each subcell face's share of the DG flux is cut so that every subcell "
     "average keeps its density within its own and its neighbouring subcells' range and its pressure above a tenth "
     "of its low-order update's after each stage (the invariant-domain preserving subcell limiting of "
     "Rueda-Ramirez, Pazner & Gassner 2022, with Zalesak's limiter and prelimiting for density; bounds hold for "
     "the SSP integrators). The subcell finite volumes then take the Rusanov flux, whatever `solver.flux`, and at "
     "p >= 2 the blend's indicator looks at pressure alone, leaving contacts to the bounds. In those elements the "
     "output shows the polynomial, pulled at each node towards its subcell's average just as far as its density, "
     "pressure and velocity need to stay within the range of the subcell averages of the element and its neighbours"},
    {"solver.subcell_repair", T::boolean, "false",
     "under `subcell_bounds: true` (no effect without): where a stage's low-order update itself leaves a subcell's density above its "
     "bound (behind strong shocks, such as Toro's test 5), move the excess to the element's other subcells, as "
     "far as their bounds leave room: conservative, every state admissible. Takes test 5's density overshoot on "
     "the cases' channel from 4.1 % to 1.3 % of the jump for 6 % more L1 error; costs the contacts next to the "
     "strong shocks of Toro's tests 3 and 4 8-19 % of L1, so it is off by default (docs/theory.md)"},
    {"solver.subcell_repair_reach", T::choice, "element",
     "under `subcell_repair: true`: where a subcell's excess may go. `element`: to any of the element's subcells "
     "below their bounds (removes the most; Toro's test 5); `neighbours`: only to the exceeding subcell's "
     "dual-face neighbours, which smears the contacts beside strong shocks less (Toro's tests 3 and 4 on the "
     "cases' channel: density overshoot 1.3 to 0.7-0.8 % for 3-6 % more L1 error; docs/theory.md); `auto`: "
     "`neighbours` at orders 1 and 2, `element` from order 3, where the neighbours cover less of the element "
     "(test 4 at p = 3: 1.3 % with `neighbours`, 0.8 % with `element`)",
     repair_reach_names},
    {"solver.subcell_repair_edges", T::boolean, "false",
     "under `subcell_bounds: true` (no effect without): an element in which a stage's low-order update leaves a "
     "subcell's density above its bound takes the finite volumes' flux on all its edges in that stage, so that "
     "the overshoot does not pass into the element means, which no repair within the element changes. With "
     "`subcell_repair` it takes Toro's test 5 on the cases' channel from 1.3 % to 1.0 % of the jump at the same "
     "L1 error; on Toro's tests 3 and 4, whose overshoots stay within 1 % without it, it changes L1 by +4 and -5 %, so "
     "it is off by default (docs/theory.md)"},
    {"solver.troubled_cells_only", T::boolean, "true", "limit (and under `shock_capturing: subcell`, blend) only the cells the KXRCF indicator flags"},
    {"solver.curved_boundaries", T::boolean, "true",
     "boundary conditions with the normal of the curve through the boundary vertices (cubic, not across corners "
     "of more than 30 degrees) at each face point, as Krivodonova & Berger (2006) impose curved walls on "
     "straight-sided elements; false: the straight faces' normals. No effect on straight boundaries"},
    {"solver.entropy_tolerance", T::real, "1e-2",
     "the entropy filter's relative slack on its entropy bound: an element is filtered where its specific entropy "
     "falls below (1 - tolerance) times the least of its neighbourhood at the previous stage (above a smooth "
     "flow's discretization error, so that smooth flows are left alone)",
     nullptr, 0, 0.5},
    {"solver.density_tolerance", T::real, "1e-3",
     "the entropy filter's relative slack on its density bound: an element is filtered where its density falls "
     "below (1 - tolerance) times the least of its neighbourhood at the previous stage",
     nullptr, 0, 0.5},
    {"solver.moment_theta", T::real, "2", "the moment limiter's bound on slopes against neighbour differences",
     nullptr, 1, 2},
    {"solver.positivity", T::real, "1e-10", "least density and pressure the positivity limiter keeps (0: off)",
     nullptr, 0, 1},
    {"solver.strategy", T::choice, "colored", "race strategy of the surface term", strategy_names},
    {"solver.precision", T::choice, "double", "floating-point precision of the kernels", precision_names},
    {"solver.backend", T::choice, "auto", "where the kernels run (auto: the GPU when one is present)", backend_names},
    {"time.end", T::real, "", "end time", nullptr, 0, huge},
    {"time.cfl", T::real, "0.5", "CFL number of the step (scaled by 1 / (2p + 1))", nullptr, 1e-6, 2},
    {"time.dt", T::real, "0", "fixed step (0: the step from the CFL number)", nullptr, 0, huge},
    {"time.integrator", T::choice, "ssprk3", "Runge-Kutta method", integrator_names},
    {"output.directory", T::text, "output/{case}", "where output goes ({case}: the case file's name without .yaml)"},
    {"output.interval", T::real, "0", "time between outputs (0: the initial and the final state only)", nullptr, 0, huge},
    {"output.fields", T::choice_list, "density, velocity, pressure, mach, entropy",
     "the point fields written (the cell fields element_id and limited always are)", field_names},
    {"output.times", T::real_list, "",
     "the times of the outputs after the start, increasing, at most time.end (instead of output.interval; the final "
     "state is always written)",
     nullptr, 0, huge, true, 0},
    {"output.entropy_reference", T::real_list, "",
     "a reference state [density, velocity x, velocity y, pressure]: print the L2 entropy error against it at every "
     "output (smooth subsonic flows; the isentropic vortex's is [1, 1, 1, 1])",
     nullptr, -huge, huge, true, 4},
    {"output.exact", T::choice, "",
     "a named function whose exact solution the run is compared with: print the L1 and L2 density error against it "
     "and write its exact_density, exact_velocity and exact_pressure beside the solution at every output (sod, toro-2 ... toro-5: exact at every t; isentropic-vortex: exact in an unbounded domain, "
     "so on the periodic square only until the vortex nears its edge)",
     function_names, -huge, huge, true},
    {"checkpoint.interval", T::real, "0", "time between checkpoints (0: none, except on a signal or a failure)",
     nullptr, 0, huge},
    {"adapt.indicator", T::choice, "",
     "adaptive refinement: the indicator that flags elements (none given: the mesh stays as it is). density_jump: "
     "normalised jump of adapt.variable's cell averages across faces; kxrcf: the KXRCF troubled-cell ratio; "
     "modal_decay: Persson & Peraire's share of the highest modes (log10); box: 1 inside adapt.boxes",
     indicator_names, -huge, huge, true},
    {"adapt.variable", T::choice, "density", "the variable density_jump and modal_decay look at",
     indicator_variable_names},
    {"adapt.refine_above", T::real, "",
     "refine elements whose indicator exceeds this (default: the indicator's own, density_jump 0.02, kxrcf 1, "
     "modal_decay -3, box 0.5)",
     nullptr, -huge, huge, true},
    {"adapt.coarsen_below", T::real, "",
     "coarsen four siblings when all four indicators lie below this, which must be below adapt.refine_above "
     "(default: density_jump 0.005, kxrcf 0.1, modal_decay -5, box 0.25)",
     nullptr, -huge, huge, true},
    {"adapt.max_level", T::integer, "2", "the finest level: each level halves the start mesh's element size", nullptr,
     1, 12},
    {"adapt.interval", T::integer, "5", "steps between adaptations", nullptr, 1, 1e9},
    {"adapt.buffer", T::integer, "1",
     "rings of neighbours refined around each flagged element, so that a shock cannot leave the fine zone between "
     "two adaptations",
     nullptr, 0, 16},
    {"adapt.initial_levels", T::integer, "0",
     "adaptations of the initial state before the first step, the initial condition projected anew on the "
     "refined mesh each time (up to adapt.max_level)",
     nullptr, 0, 12},
    {"adapt.boxes", T::real_list, "",
     "for the box indicator: boxes [x0, y0, x1, y1, x0, y0, x1, y1, ...], x0 < x1, y0 < y1, at most 16", nullptr,
     -huge, huge, true, 0},
};

bool matches(std::string_view pattern, std::string_view key) {
  const std::size_t star = pattern.find('*');
  if (star == std::string_view::npos) return pattern == key;
  const std::string_view head = pattern.substr(0, star), tail = pattern.substr(star + 1);
  if (key.size() <= head.size() + tail.size() || key.substr(0, head.size()) != head ||
      key.substr(key.size() - tail.size()) != tail)
    return false;
  const std::string_view group = key.substr(head.size(), key.size() - head.size() - tail.size());
  return group.find('.') == std::string_view::npos;
}

std::string format_bound(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

}  // namespace

const std::vector<Setting>& settings() { return table; }

const Setting* find_setting(std::string_view key) {
  for (const Setting& s : table)
    if (matches(s.key, key)) return &s;
  return nullptr;
}

std::string closest_key(std::string_view key) {
  std::string best;
  int best_distance = 0;
  for (const Setting& s : table) {
    std::string candidate(s.key);
    // For a group key, compare with the pattern's * replaced by the key's own group name.
    if (const std::size_t star = candidate.find('*'); star != std::string::npos && key.substr(0, star) == candidate.substr(0, star)) {
      const std::size_t dot = key.find('.', star);
      if (dot != std::string_view::npos) candidate = std::string(key.substr(0, dot)) + candidate.substr(star + 1);
    }
    const int d = edit_distance(key, candidate);
    if (best.empty() || d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  const int allowed = std::max<int>(1, static_cast<int>(std::max(key.size(), best.size())) / 3);
  return best_distance <= allowed ? best : std::string();
}

std::string describe_type(const Setting& s) {
  switch (s.type) {
    case ValueType::text:
      return "text";
    case ValueType::boolean:
      return "true or false";
    case ValueType::integer:
    case ValueType::real: {
      std::string out = s.type == ValueType::integer ? "integer" : "real";
      if (s.minimum > -huge && s.maximum < huge) return out + " in [" + format_bound(s.minimum) + ", " + format_bound(s.maximum) + "]";
      if (s.minimum > -huge) return out + " >= " + format_bound(s.minimum);
      return out;
    }
    case ValueType::choice: {
      std::string out = "one of: ";
      const std::vector<std::string_view> names = s.choices();
      for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + std::string(names[i]);
      return out;
    }
    case ValueType::real_list:
      return s.list_size == 0 ? std::string("list of reals") : "list of " + std::to_string(s.list_size) + " reals";
    case ValueType::choice_list: {
      std::string out = "list of: ";
      const std::vector<std::string_view> names = s.choices();
      for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + std::string(names[i]);
      return out;
    }
  }
  return "";
}

namespace {
std::string default_text(const Setting& s) {
  if (!s.default_value.empty()) return std::string(s.default_value);
  return s.optional ? "(none)" : "(required)";
}
}  // namespace

std::string reference_markdown() {
  std::string out =
      "# Case file reference\n\nGenerated from the schema table in solver/case/case_schema.cpp (`kempe run --help-config` prints "
      "the same). A `*` in a key stands for the name of one of the mesh's boundary groups.\n\n| key | type | default | "
      "description |\n|---|---|---|---|\n";
  for (const Setting& s : table)
    out += "| `" + std::string(s.key) + "` | " + describe_type(s) + " | " + default_text(s) + " | " + std::string(s.description) + " |\n";
  return out;
}

std::string reference_text() {
  std::string out;
  for (const Setting& s : table)
    out += std::string(s.key) + "\n    " + describe_type(s) + "; default " + default_text(s) + "\n    " +
           std::string(s.description) + "\n";
  return out;
}

}  // namespace kempe::cases
