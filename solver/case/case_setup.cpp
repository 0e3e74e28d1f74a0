// From a checked case file to the solver's inputs (see case_setup.hpp).
#include "solver/case/case_setup.hpp"

#include <muParser.h>

#include <algorithm>
#include <array>
#include <memory>
#include <filesystem>
#include <cstdio>
#include <stdexcept>

#include "base/registry.hpp"
#include "kernels/euler.hpp"
#include "mesh/load.hpp"
#include "mesh/periodic.hpp"
#if KEMPE_HAVE_GMSH
#include "mesh/gmsh_io.hpp"
#endif

namespace kempe::cases {
namespace {

/// The groups of the mesh that have at least one boundary face.
std::vector<bool> groups_with_faces(const Mesh& mesh) {
  std::vector<bool> used(mesh.boundary_names.size(), false);
  for (index_t f = 0; f < mesh.num_faces(); ++f)
    if (mesh.face_right[f] == no_element && mesh.face_boundary[f] >= 0 &&
        mesh.face_boundary[f] < static_cast<std::int32_t>(used.size()))
      used[mesh.face_boundary[f]] = true;
  return used;
}

std::string list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out.empty() ? "(none)" : out;
}

/// "case.yaml:12:5: LABEL: " where key was given in the file, "--set LABEL: " for an override, "case.yaml: LABEL: "
/// for a default.
std::string place(const CaseFile& c, const std::string& key, const std::string& label) {
  const Origin o = c.origin(key);
  if (o.kind == Origin::Kind::file)
    return c.source() + ":" + std::to_string(o.line) + ":" + std::to_string(o.column) + ": " + label + ": ";
  if (o.kind == Origin::Kind::override) return "--set " + label + ": ";
  return c.source() + ": " + label + ": ";
}

}  // namespace

std::string key_location(const CaseFile& c, const std::string& key) { return place(c, key, key); }

void check_solver_keys(const CaseFile& c) {
  const long long order = c.integer("solver.subcell_order");
  if (c.boolean("solver.subcell_bounds") && order != 1)
    throw std::invalid_argument(place(c, "solver.subcell_bounds", "solver.subcell_bounds") +
                                "bounds on the subcell averages need solver.subcell_order 1 (second-order subcell finite "
                                "volumes do not keep them), not " + std::to_string(order));
}

std::optional<AdaptSettings> adapt_settings(const CaseFile& c) {
  static const char* const keys[] = {"adapt.variable", "adapt.refine_above", "adapt.coarsen_below", "adapt.max_level",
                                     "adapt.interval", "adapt.buffer", "adapt.initial_levels", "adapt.boxes"};
  if (!c.has("adapt.indicator")) {
    for (const char* key : keys)
      if (c.has(key) && c.origin(key).kind != Origin::Kind::default_value)
        throw std::invalid_argument(place(c, key, key) + "adaptive refinement needs adapt.indicator too (one of: " +
                                    [] {
                                      std::string names;
                                      for (const auto& i : adapt::indicators) names += (names.empty() ? "" : ", ") + std::string(i.name);
                                      return names;
                                    }() + ")");
    return std::nullopt;
  }
  AdaptSettings a;
  const adapt::IndicatorEntry& indicator = adapt::indicator_from_name(c.text("adapt.indicator"));
  a.criteria.indicator = indicator.value;
  a.criteria.variable = adapt::indicator_variable_from_name(c.text("adapt.variable"));
  a.criteria.refine_above = c.has("adapt.refine_above") ? c.real("adapt.refine_above") : indicator.refine_above;
  a.criteria.coarsen_below = c.has("adapt.coarsen_below") ? c.real("adapt.coarsen_below") : indicator.coarsen_below;
  a.criteria.buffer = static_cast<int>(c.integer("adapt.buffer"));
  a.max_level = static_cast<int>(c.integer("adapt.max_level"));
  a.interval = static_cast<int>(c.integer("adapt.interval"));
  a.initial_levels = static_cast<int>(c.integer("adapt.initial_levels"));
  if (!(a.criteria.coarsen_below < a.criteria.refine_above)) {
    const char* key = c.has("adapt.coarsen_below") ? "adapt.coarsen_below" : "adapt.refine_above";
    char message[160];
    std::snprintf(message, sizeof message, "adapt.coarsen_below (%g) must be below adapt.refine_above (%g)",
                  a.criteria.coarsen_below, a.criteria.refine_above);
    throw std::invalid_argument(place(c, key, key) + message);
  }
  if (a.initial_levels > a.max_level)
    throw std::invalid_argument(place(c, "adapt.initial_levels", "adapt.initial_levels") + std::to_string(a.initial_levels) +
                                " adaptations of the initial state cannot go below adapt.max_level " + std::to_string(a.max_level));
  if (indicator.value == adapt::Indicator::modal_decay && c.integer("solver.order") == 0)
    throw std::invalid_argument(place(c, "adapt.indicator", "adapt.indicator") +
                                "modal_decay compares an element's highest modes with the others, and solver.order 0 has only one");
  if (indicator.value != adapt::Indicator::box) {
    if (c.has("adapt.boxes"))
      throw std::invalid_argument(place(c, "adapt.boxes", "adapt.boxes") + "boxes are for adapt.indicator box, not " +
                                  c.text("adapt.indicator"));
    return a;
  }
  if (!c.has("adapt.boxes"))
    throw std::invalid_argument(place(c, "adapt.indicator", "adapt.indicator") +
                                "the box indicator needs adapt.boxes: [x0, y0, x1, y1, ...]");
  const std::vector<double> values = c.real_list("adapt.boxes");
  const std::string where = place(c, "adapt.boxes", "adapt.boxes");
  if (values.size() % 4 != 0)
    throw std::invalid_argument(where + std::to_string(values.size()) + " numbers; each box is 4: x0, y0, x1, y1");
  if (values.size() / 4 > std::size_t(adapt::max_boxes))
    throw std::invalid_argument(where + std::to_string(values.size() / 4) + " boxes; at most " + std::to_string(adapt::max_boxes));
  for (std::size_t b = 0; b < values.size(); b += 4) {
    const adapt::Box box{values[b], values[b + 1], values[b + 2], values[b + 3]};
    if (!(box.x0 < box.x1 && box.y0 < box.y1))
      throw std::invalid_argument(where + "box " + std::to_string(b / 4 + 1) + " is empty: each box needs x0 < x1 and y0 < y1");
    a.criteria.boxes.push_back(box);
  }
  return a;
}

std::string mesh_path(const CaseFile& c) {
  const std::filesystem::path file(c.text("mesh.file"));
  if (file.is_absolute()) return file.string();
  return (std::filesystem::path(c.source()).parent_path() / file).lexically_normal().string();
}

Mesh load_case_mesh(const CaseFile& c) {
  if (c.has("mesh.file")) {  // the case file has exactly one of mesh.file and mesh.generator (checked when read)
    LoadOptions options;
    options.mesh_size = c.real("mesh.size");
    return load_mesh(mesh_path(c), options);
  }
#if KEMPE_HAVE_GMSH
  RectSpec spec;
  spec.width = c.real("mesh.width");
  spec.height = c.real("mesh.height");
  spec.elements = c.integer("mesh.elements");
  spec.seed = static_cast<int>(c.integer("mesh.seed"));
  RawMesh raw = generate_rect(spec);
  raw.source = c.source() + " (mesh.generator: rectangle)";
  return build_mesh(std::move(raw));
#else
  throw std::invalid_argument(c.source() + ": mesh.generator needs the Gmsh adapter, which this build lacks");
#endif
}

void apply_periodic(const CaseFile& c, Mesh& mesh) {
  std::vector<std::string> joined;
  for (const std::string& group : c.boundary_groups()) {
    const std::string prefix = "boundaries." + group;
    if (c.text(prefix + ".condition") != "periodic") continue;
    if (!c.has(prefix + ".partner"))
      throw std::invalid_argument(place(c, prefix + ".condition", prefix) +
                                  "a periodic group needs its partner: add " + prefix + ".partner");
    const std::string partner = c.text(prefix + ".partner");
    const std::string partner_key = "boundaries." + partner + ".condition";
    if (partner == group || !c.has(partner_key) || c.text(partner_key) != "periodic" ||
        !c.has("boundaries." + partner + ".partner") || c.text("boundaries." + partner + ".partner") != group)
      throw std::invalid_argument(place(c, prefix + ".partner", prefix + ".partner") + "the partner '" + partner +
                                  "' must be another group with condition periodic and partner " + group);
    if (std::find(joined.begin(), joined.end(), group) != joined.end()) continue;  // joined from the other side
    // The translation from this group to its partner: the difference of their face centres.
    std::array<std::array<double, 3>, 2> centre{};
    std::array<index_t, 2> count{};
    for (index_t f = 0; f < mesh.num_faces(); ++f) {
      if (mesh.face_right[f] != no_element || mesh.face_boundary[f] < 0) continue;
      const std::string& name = mesh.boundary_names[mesh.face_boundary[f]];
      const int side = name == group ? 0 : name == partner ? 1 : -1;
      if (side < 0) continue;
      const int n = mesh.face_num_vertices[f];
      for (int k = 0; k < n; ++k) {
        const index_t v = mesh.face_vertices[std::size_t(f) * max_face_vertices + k];
        centre[side][0] += mesh.x[v] / n;
        centre[side][1] += mesh.y[v] / n;
        centre[side][2] += mesh.z[v] / n;
      }
      ++count[side];
    }
    std::array<double, 3> shift{};
    for (int d = 0; d < 3; ++d)
      shift[d] = (count[1] ? centre[1][d] / count[1] : 0) - (count[0] ? centre[0][d] / count[0] : 0);
    try {
      make_periodic(mesh, group, partner, shift);
    } catch (const MeshError& e) {
      throw std::invalid_argument(place(c, prefix + ".partner", prefix + ".partner") + e.what());
    }
    joined.push_back(partner);
  }
}

void check_boundaries(const CaseFile& c, const Mesh& mesh) {
  const std::vector<bool> used = groups_with_faces(mesh);
  const std::vector<std::string> assigned = c.boundary_groups();
  std::vector<std::string> mesh_groups;
  for (std::size_t g = 0; g < used.size(); ++g)
    if (used[g]) mesh_groups.push_back(mesh.boundary_names[g]);
  for (const std::string& group : assigned)
    if (std::find(mesh.boundary_names.begin(), mesh.boundary_names.end(), group) == mesh.boundary_names.end()) {
      std::vector<std::string_view> known(mesh_groups.begin(), mesh_groups.end());
      std::string message = unknown_name_message("boundary group", group, known);
      message.replace(0, std::string("unknown boundary group").size(), "the mesh " + mesh.source + " has no boundary group");
      throw std::invalid_argument(place(c, "boundaries." + group + ".condition", "boundaries." + group) + message);
    }
  for (const std::string& group : mesh_groups)
    if (std::find(assigned.begin(), assigned.end(), group) == assigned.end())
      throw std::invalid_argument(c.source() + ": the boundary group '" + group + "' of " + mesh.source +
                                  " has no condition: add boundaries." + group + ".condition (the mesh's groups: " +
                                  list(mesh_groups) + ")");
}

BoundaryTable boundary_table(const CaseFile& c, const Mesh& mesh) {
  check_boundaries(c, mesh);
  const double gamma = c.real("physics.gamma");
  const std::vector<bool> used = groups_with_faces(mesh);
  BoundaryTable table;
  for (std::size_t g = 0; g < mesh.boundary_names.size(); ++g) {
    const std::string prefix = "boundaries." + mesh.boundary_names[g];
    bc::Kind kind = bc::Kind::wall;
    bc::StateFunction function = bc::StateFunction::double_mach;
    double u[euler::num_vars] = {1, 0, 0, 1 / (gamma - 1)};  // unused by walls, outflows and functions
    if (used[g] && c.text(prefix + ".condition") == "periodic")
      throw std::invalid_argument(place(c, prefix + ".condition", prefix + ".condition") + "the group is periodic, but " +
                                  mesh.source + " still has boundary faces in it: a mesh colored before the join (a "
                                  ".kmesh saved by kempe color) cannot be joined; give the case the .geo or .msh file");
    if (used[g] || (c.has(prefix + ".condition") && c.text(prefix + ".condition") != "periodic")) {
      kind = bc::kind_from_name(c.text(prefix + ".condition"));
      if (c.has(prefix + ".function")) function = bc::state_function_from_name(c.text(prefix + ".function"));
      if (c.has(prefix + ".state")) {
        const std::vector<double> s = c.real_list(prefix + ".state");
        if (!(s[0] > 0 && s[3] > 0))
          throw std::invalid_argument(place(c, prefix + ".state", prefix + ".state") + "density and pressure must be positive");
        euler::conserved(s[0], s[1], s[2], s[3], gamma, u);
      }
    }
    table.kinds.push_back(kind);
    table.functions.push_back(function);
    table.states.insert(table.states.end(), u, u + euler::num_vars);
  }
  return table;
}

namespace {
/// Density, velocity and pressure as muparser expressions in x and y, checked when made (a syntax error or an
/// unknown variable names the key, the expression and the position).
class ExpressionState {
 public:
  ExpressionState(const CaseFile& c, double gamma) : data_(std::make_shared<Data>()), gamma_(gamma) {
    const std::array<const char*, 4> keys = {"initial.density", "initial.velocity_x", "initial.velocity_y", "initial.pressure"};
    for (std::size_t i = 0; i < keys.size(); ++i) {
      mu::Parser& p = data_->parsers[i];
      try {
        p.DefineVar("x", &data_->x);
        p.DefineVar("y", &data_->y);
        p.DefineConst("pi", 3.141592653589793);
        p.SetExpr(c.text(keys[i]));
        (void)p.Eval();  // parses now, so that errors come before the run
      } catch (const mu::Parser::exception_type& e) {
        throw std::invalid_argument(place(c, keys[i], keys[i]) + "bad expression '" + c.text(keys[i]) + "': " + e.GetMsg());
      }
    }
  }
  void operator()(double x, double y, double* u) const {
    data_->x = x;
    data_->y = y;
    double s[4];
    for (int i = 0; i < 4; ++i) s[i] = data_->parsers[i].Eval();
    if (!(s[0] > 0 && s[3] > 0)) {
      char message[200];
      std::snprintf(message, sizeof message, "the initial expressions give density %.6g and pressure %.6g at (%.6g, %.6g)", s[0],
                    s[3], x, y);
      throw std::runtime_error(message);
    }
    euler::conserved(s[0], s[1], s[2], s[3], gamma_, u);
  }

 private:
  struct Data {
    double x = 0, y = 0;
    std::array<mu::Parser, 4> parsers;
  };
  std::shared_ptr<Data> data_;  // the parsers hold the addresses of x and y: they stay put
  double gamma_;
};
}  // namespace

std::function<void(double, double, double*)> initial_state(const CaseFile& c) {
  const double gamma = c.real("physics.gamma");
  const std::string name = c.text("initial.function");
  if (name == "expression") return ExpressionState(c, gamma);
  if (name == "uniform") {
    const std::vector<double> s = c.real_list("initial.state");
    if (!(s[0] > 0 && s[3] > 0))
      throw std::invalid_argument(place(c, "initial.state", "initial.state") + "density and pressure must be positive");
    return [s, gamma](double, double, double* u) { euler::conserved(s[0], s[1], s[2], s[3], gamma, u); };
  }
  const bc::StateFunction f = bc::state_function_from_name(name);
  return [f, gamma](double x, double y, double* u) { bc::function_state(f, x, y, 0.0, gamma, u); };
}

/// The case's times at which output is due after the start: every output.interval, and the end time.
std::vector<double> output_times(const CaseFile& c) {
  const double end = c.real("time.end"), interval = c.real("output.interval");
  std::vector<double> times;
  if (c.has("output.times")) {
    if (interval > 0)
      throw std::invalid_argument(c.source() + ": output: give output.times or output.interval, not both");
    times = c.real_list("output.times");
    if (times.size() > std::size_t(max_outputs))
      throw std::invalid_argument(c.source() + ": output.times: more than " + std::to_string(max_outputs) + " times");
    for (std::size_t i = 0; i < times.size(); ++i)
      if (times[i] <= 0 || times[i] > end || (i > 0 && times[i] <= times[i - 1]))
      {
        char message[160];
        std::snprintf(message, sizeof message, ": output.times: expected increasing times in (0, time.end = %g], got %g at position %zu",
                      end, times[i], i + 1);
        throw std::invalid_argument(c.source() + message);
      }
    if (times.back() < end) times.push_back(end);
    return times;
  }
  if (interval > 0) {
    if (end / interval > double(max_outputs)) {
      char message[200];
      std::snprintf(message, sizeof message,
                    ": output.interval %g over time.end %g asks for %.3g outputs; at most %d are written (raise "
                    "output.interval)", interval, end, end / interval, max_outputs);
      throw std::invalid_argument(c.source() + message);
    }
    for (long k = 1; double(k) * interval < end * (1 - 1e-12); ++k) times.push_back(double(k) * interval);
  }
  times.push_back(end);
  return times;
}

}  // namespace kempe::cases
