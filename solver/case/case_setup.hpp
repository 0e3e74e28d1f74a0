// From a checked case file to what the solver takes: the mesh path, the boundary table in the mesh's group
// order (after checking that the case and the mesh name the same groups), and the initial state.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "adapt/indicators_K.hpp"
#include "kernels/boundary_K.hpp"
#include "mesh/mesh.hpp"
#include "solver/case/case_file.hpp"

namespace kempe::cases {

/// mesh.file, relative to the case file's folder unless absolute.
std::string mesh_path(const CaseFile& c);

/// The case's mesh, as built (not yet colored): mesh.file (a .geo meshed at mesh.size) or mesh.generator.
/// std::invalid_argument naming the case file when it gives neither or both.
Mesh load_case_mesh(const CaseFile& c);

/// Joins every pair of groups whose condition is `periodic` (each names the other as `partner`) with
/// make_periodic, the translation taken between the two groups' face centres. Call before check_boundaries and
/// before coloring. std::invalid_argument naming the key for a missing or wrong partner.
void apply_periodic(const CaseFile& c, Mesh& mesh);

/// Throws std::invalid_argument when a boundary group of the mesh (one that has boundary faces) has no condition
/// in the case, or when the case assigns a group the mesh lacks; the message names the case file (and line), the
/// mesh, the group, the closest mesh group and the mesh's groups.
void check_boundaries(const CaseFile& c, const Mesh& mesh);

/// The boundary conditions of the case, one entry per boundary group of the mesh (mesh.boundary_names order):
/// outside states in conserved variables. Groups without boundary faces get `wall` (they have no faces to act on).
struct BoundaryTable {
  std::vector<bc::Kind> kinds;
  std::vector<double> states;  ///< [groups][num_vars] conserved
  std::vector<bc::StateFunction> functions;
  /// The kernels' view; valid while the table lives (the solver copies it to the device).
  bc::GroupBoundary<double> view(double gamma) const { return {kinds.data(), states.data(), gamma, functions.data()}; }
};
BoundaryTable boundary_table(const CaseFile& c, const Mesh& mesh);

/// The initial state: state(x, y, out) writes the conserved variables (a named function at t = 0, or uniform).
std::function<void(double, double, double*)> initial_state(const CaseFile& c);

/// "case.yaml:12:5: KEY: " where the key was given in the file, "--set KEY: " for an override, "case.yaml: KEY: "
/// for a default: the start of an error message about the key's value.
std::string key_location(const CaseFile& c, const std::string& key);

/// The solver: section's keys together: std::invalid_argument naming the key (file and line) for
/// solver.subcell_bounds with solver.subcell_order 2 (second-order subcell finite volumes do not keep the bounds).
void check_solver_keys(const CaseFile& c);

/// A case's adaptive refinement (its adapt: section).
struct AdaptSettings {
  adapt::AdaptCriteria criteria;
  int max_level = 2, interval = 5, initial_levels = 0;
};
/// The adapt: section, or nothing when the case gives no adapt.indicator. std::invalid_argument naming the key
/// (file and line) for adapt keys without adapt.indicator, adapt.coarsen_below not below adapt.refine_above,
/// adapt.initial_levels above adapt.max_level, a box indicator without boxes (or with more than
/// adapt::max_boxes, or an empty one), boxes given to another indicator, and modal_decay at solver.order 0.
std::optional<AdaptSettings> adapt_settings(const CaseFile& c);

/// The most output times a case may ask for (each is a file).
inline constexpr int max_outputs = 100000;

/// The case's times at which output is due after the start: every output.interval (or the list output.times)
/// and the end time. std::invalid_argument naming the key for times out of order or past time.end, for both
/// keys at once, and for more than max_outputs outputs.
std::vector<double> output_times(const CaseFile& c);

}  // namespace kempe::cases
