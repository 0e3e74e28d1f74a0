// `kempe color MESH`: color the faces, reorder, and print a row like the coloring paper's tables.
#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "coloring/coloring.hpp"
#include "coloring/reorder.hpp"
#include "mesh/load.hpp"
#if KEMPE_HAVE_VTK
#include "solver/output/vtk_output.hpp"
#endif
#include "solver/cli/commands.hpp"

namespace kempe::cli {
namespace {

struct ColorOptions {
  std::string mesh;
  std::string algorithm = "kempe";
  std::string order = "color_renumber";
  std::uint64_t seed = 1;
  double size = 0;
  std::string save;
  std::string vtk;
  bool json = false;
};

std::string names(auto const& table) {
  std::string s;
  for (const auto& entry : table) s += (s.empty() ? "" : ", ") + std::string(entry.name);
  return s;
}

void run_color(const ColorOptions& o) {
  LoadOptions lo;
  lo.mesh_size = o.size;
  Mesh mesh = load_mesh(o.mesh, lo);
  ColoringOptions co;
  co.algorithm = o.algorithm;
  co.seed = o.seed;
  FaceColoring coloring = color_faces(mesh, co);
  const Ordering& ordering = find_ordering(o.order);
  const auto t0 = std::chrono::steady_clock::now();
  const Permutation permutation = ordering.compute(mesh, coloring);
  apply_ordering(mesh, coloring, permutation);
  const double reorder_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // The validity check runs after every coloring and again after reordering, in every build type.
  const std::string problem = check_coloring(mesh, coloring.color, coloring.num_colors);
  if (!problem.empty()) throw std::logic_error("coloring invalid after reordering: " + problem);
  const OrderingMetrics metrics = ordering_metrics(mesh);
  if (!o.save.empty()) save_mesh(mesh, o.save);
  if (!o.vtk.empty()) {
#if KEMPE_HAVE_VTK
    output::write_face_colors(o.vtk, mesh);
#else
    throw std::invalid_argument("--vtk " + o.vtk + ": this build has no VTK (run scripts/setup and rebuild)");
#endif
  }
  const std::vector<index_t> per_color = coloring.faces_per_color();

  if (o.json) {
    nlohmann::json j;
    j["mesh"] = o.mesh;
    j["elements"] = mesh.num_elements();
    j["faces"] = mesh.num_faces();
    j["colors"] = coloring.num_colors;
    j["target_colors"] = coloring.target_colors;
    j["faces_per_color"] = per_color;
    j["valid"] = problem.empty();
    j["status"] = std::string(status_name(coloring.status));
    j["algorithm"] = coloring.algorithm;
    j["seed"] = o.seed;
    j["seconds"] = coloring.seconds;
    j["order"] = std::string(ordering.name);
    j["reorder_seconds"] = reorder_seconds;
    j["bandwidth"] = metrics.bandwidth;
    j["profile"] = metrics.profile;
    j["coalesced_left"] = metrics.coalesced_left;
    j["coalesced_right"] = metrics.coalesced_right;
    j["greedy_conflicts"] = coloring.greedy_conflicts;
    j["hard_conflicts"] = coloring.hard_conflicts;
    j["fallback_faces"] = coloring.fallback_faces;
    j["by_vertices"] = coloring.by_vertices;
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  std::ostringstream classes;
  for (std::size_t c = 0; c < per_color.size(); ++c) classes << (c ? " " : "") << per_color[c];
  const int name_width = static_cast<int>(std::max<std::size_t>(28, o.mesh.size() + 2));
  std::cout << std::left << std::setw(name_width) << "mesh" << std::setw(22) << "elements / faces" << std::setw(40)
            << "faces per color" << std::setw(8) << "colors" << std::setw(10) << "status" << std::setw(14)
            << "coloring (s)" << "reordering (s)\n";
  std::ostringstream sizes;
  sizes << mesh.num_elements() << " / " << mesh.num_faces();
  std::cout << std::setw(name_width) << o.mesh << std::setw(22) << sizes.str() << std::setw(40) << classes.str() << std::setw(8)
            << coloring.num_colors << std::setw(10) << status_name(coloring.status) << std::setw(14) << std::fixed
            << std::setprecision(3) << coloring.seconds << reorder_seconds << "\n";
  std::cout << "algorithm " << coloring.algorithm << (coloring.by_vertices ? " through a vertex 4-coloring" : "")
            << " (seed " << o.seed << "), fewest possible colors "
            << coloring.target_colors << "; order " << ordering.name << ": bandwidth " << metrics.bandwidth
            << ", profile " << metrics.profile << ", coalesced reads left " << std::setprecision(3)
            << metrics.coalesced_left << " right " << metrics.coalesced_right << "\n";
  if (coloring.status != ColoringStatus::optimal)
    std::cout << "note: " << coloring.num_colors << " colors, " << coloring.num_colors - coloring.target_colors
              << " more than the fewest possible (" << coloring.target_colors << ")\n";
  if (!o.save.empty()) std::cout << "wrote " << o.save << "\n";
  if (!o.vtk.empty()) std::cout << "wrote " << o.vtk << " (the faces with their colors: open it in ParaView)\n";
}

}  // namespace

void add_color_command(CLI::App& app) {
  auto o = std::make_shared<ColorOptions>();
  CLI::App* cmd = app.add_subcommand(
      "color", "Color the mesh faces so that no element has two faces of one color (race-free surface kernels), "
               "reorder elements and faces, and print the coloring statistics");
  cmd->add_option("MESH", o->mesh, "Mesh file: .msh, .geo or .kmesh")->required();
  cmd->add_option("--algorithm,-a", o->algorithm, "Coloring algorithm: " + names(coloring_algorithms()))
      ->capture_default_str();
  cmd->add_option("--order", o->order, "Element and face ordering: " + names(orderings()))->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed of the randomized algorithms (same seed, same coloring)")
      ->capture_default_str();
  cmd->add_option("--size", o->size, "Element size when meshing a .geo file")->check(CLI::PositiveNumber);
  cmd->add_option("--save", o->save, "Write the colored and reordered mesh (.kmesh keeps colors and permutations)");
  cmd->add_option("--vtk", o->vtk, "Write the faces with their colors to this .vtu file (ParaView)");
  cmd->add_flag("--json", o->json,
                "Print one JSON object (keys elements, faces, colors, faces_per_color, valid, status, seconds, ...)");
  cmd->callback([o] { run_color(*o); });
}

}  // namespace kempe::cli
