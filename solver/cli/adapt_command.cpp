// `kempe adapt MESH`: random refinement and coarsening cycles on a triangle mesh, with the face colors mapped to
// the children (adapt/forest.hpp), checked after every cycle; --roundtrip refines everything and coarsens it
// back to the start mesh.
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include <unistd.h>

#include "adapt/forest.hpp"
#include "coloring/coloring.hpp"
#include "coloring/reorder.hpp"
#include "kernels/buffer.hpp"
#include "mesh/load.hpp"
#include "solver/cli/commands.hpp"
#if KEMPE_HAVE_VTK
#include "solver/output/vtk_output.hpp"
#endif

namespace kempe::cli {
namespace {

struct AdaptOptions {
  std::string mesh;
  int max_level = 3;
  double refine = 0.1, coarsen = 0.1;
  int cycles = 10;
  std::uint64_t seed = 1;
  bool roundtrip = false;
  std::string backend = "cpu";
  double size = 0;
  std::string order = "color_renumber";
  std::string vtk;
  std::string save;
  bool json = false;
};

/// Ordering metrics of a leaf mesh (those of coloring/reorder.hpp, over its faces, hanging ones included).
OrderingMetrics leaf_metrics(const adapt::LeafMesh& m) {
  OrderingMetrics r;
  const index_t nf = m.num_faces(), ne = m.num_elements();
  std::vector<index_t> lowest(ne);
  for (index_t e = 0; e < ne; ++e) lowest[e] = e;
  index_t left_same = 0, right_same = 0, interior = 0, previous_right = no_element;
  for (index_t f = 0; f < nf; ++f) {
    const index_t l = m.face_left[f], rt = m.face_right[f];
    if (f > 0 && l / 16 == m.face_left[f - 1] / 16) ++left_same;
    if (rt == no_element) continue;
    r.bandwidth = std::max(r.bandwidth, rt - l);
    lowest[rt] = std::min(lowest[rt], l);
    if (interior > 0 && rt / 16 == previous_right / 16) ++right_same;
    previous_right = rt;
    ++interior;
  }
  for (index_t e = 0; e < ne; ++e) r.profile += e - lowest[e];
  r.coalesced_left = nf > 1 ? double(left_same) / double(nf - 1) : 0.0;
  r.coalesced_right = interior > 1 ? double(right_same) / double(interior - 1) : 0.0;
  return r;
}

nlohmann::json metrics_json(const OrderingMetrics& m) {
  return {{"bandwidth", m.bandwidth}, {"profile", m.profile}, {"coalesced_left", m.coalesced_left},
          {"coalesced_right", m.coalesced_right}};
}

nlohmann::json cycle_json(const std::string& kind, const adapt::AdaptReport& r) {
  return {{"kind", kind},
          {"elements", r.elements},
          {"faces", r.faces},
          {"hanging_faces", r.hanging_faces},
          {"nodes", r.nodes},
          {"min_level", r.min_level},
          {"max_level", r.max_level},
          {"colors", r.colors},
          {"valid", r.valid()},
          {"failures", r.failures},
          {"refined", r.refined},
          {"coarsened", r.coarsened},
          {"balance_passes", r.balance_passes},
          {"seconds", r.seconds},
          {"phase_seconds",
           {{"flags", r.seconds_flags},
            {"balance", r.seconds_balance},
            {"counts", r.seconds_counts},
            {"build", r.seconds_build},
            {"faces", r.seconds_faces},
            {"geometry", r.seconds_geometry},
            {"check", r.seconds_check}}}};
}

void print_header() {
  std::cout << std::left << std::setw(12) << "cycle" << std::setw(11) << "elements" << std::setw(11) << "faces"
            << std::setw(9) << "hanging" << std::setw(8) << "levels" << std::setw(8) << "colors" << std::setw(7)
            << "valid" << std::setw(11) << "total (ms)"
            << "flags / balance / counts / build / faces / geometry / check (ms)\n";
}

void print_cycle(const std::string& name, const adapt::AdaptReport& r) {
  std::ostringstream levels, phases;
  levels << r.min_level << "-" << r.max_level;
  phases << std::fixed << std::setprecision(2) << 1e3 * r.seconds_flags << " / " << 1e3 * r.seconds_balance << " / "
         << 1e3 * r.seconds_counts << " / " << 1e3 * r.seconds_build << " / " << 1e3 * r.seconds_faces << " / "
         << 1e3 * r.seconds_geometry << " / " << 1e3 * r.seconds_check;
  std::cout << std::left << std::setw(12) << name << std::setw(11) << r.elements << std::setw(11) << r.faces << std::setw(9)
            << r.hanging_faces << std::setw(8) << levels.str() << std::setw(8) << r.colors << std::setw(7)
            << (r.valid() ? "yes" : "NO") << std::setw(11) << std::fixed << std::setprecision(2) << 1e3 * r.seconds
            << phases.str() << "\n";
}

void run_adapt(const AdaptOptions& o) {
  const Backend backend = backend_from_name(o.backend);
  const Ordering& ordering = find_ordering(o.order);
  if (ordering.name == "as_read")
    throw std::invalid_argument("--order as_read: an adapted mesh keeps each color's faces sorted by left element; "
                                "choose color_renumber, rcm or hilbert");
#if !KEMPE_HAVE_VTK
  if (!o.vtk.empty()) throw std::invalid_argument("--vtk " + o.vtk + ": this build has no VTK (run scripts/setup and rebuild)");
#endif
  if (!o.save.empty() && !(o.save.size() > 6 && o.save.compare(o.save.size() - 6, 6, ".kmesh") == 0))
    throw std::invalid_argument("--save " + o.save + ": an adapted mesh is saved as .kmesh (it keeps the refinement tree)");
  LoadOptions lo;
  lo.mesh_size = o.size;
  Mesh mesh = load_mesh(o.mesh, lo);
  // A mesh saved by --save: its start mesh, colored and ordered as it was, and the leaves to rebuild.
  const bool saved = !mesh.leaf_root.empty();
  // The most elements refining everything to the maximum level makes must fit the 32-bit index.
  const double most = double(mesh.num_elements()) * std::pow(4.0, o.max_level);
  if (most > double(std::numeric_limits<index_t>::max())) {
    int fits = 0;
    while (double(mesh.num_elements()) * std::pow(4.0, fits + 1) <= double(std::numeric_limits<index_t>::max())) ++fits;
    std::ostringstream s;
    s << "--max-level " << o.max_level << ": refining all " << mesh.num_elements() << " triangles of " << o.mesh
      << " to that level makes " << std::setprecision(3) << most << " elements, more than the "
      << std::numeric_limits<index_t>::max() << " a 32-bit index holds; at most --max-level " << fits << " for this mesh";
    throw std::invalid_argument(s.str());
  }
  if (o.roundtrip) {
    // The round trip refines everything: refuse up front what cannot fit, saying what it would need. A forest
    // holds about 570 bytes a leaf at its peak (both mesh buffers, faces, scratch with the balance's neighbour
    // lists; `memory:` in the output).
    constexpr double bytes_per_leaf = 570;
    const double need = most * bytes_per_leaf;
    const double have = backend == Backend::cuda ? double(device_memory().free_bytes)
                                                 : double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
    if (need > have) {
      std::ostringstream s;
      s << std::setprecision(3) << "--max-level " << o.max_level << " with --roundtrip: refining all " << mesh.num_elements()
        << " triangles of " << o.mesh << " to that level makes " << most << " leaves, about " << need / (1 << 30)
        << " GiB (" << bytes_per_leaf << " bytes a leaf), more than the " << have / (1 << 30) << " GiB "
        << (backend == Backend::cuda ? "free on the device" : "of memory on this machine");
      throw std::invalid_argument(s.str());
    }
  }
  if (!saved) {
    FaceColoring coloring = color_faces(mesh, ColoringOptions{});
    apply_ordering(mesh, coloring, ordering.compute(mesh, coloring));
  }

  adapt::TriangleForest forest(mesh, backend, o.max_level);
  if (saved) forest.refine_to(mesh.leaf_root, mesh.leaf_path, mesh.leaf_level, o.mesh);
  const adapt::AdaptReport start = forest.check();
  if (!start.valid()) throw std::logic_error(o.mesh + ": the start mesh fails the adapted-mesh check");
  const OrderingMetrics before = leaf_metrics(forest.to_host());

  nlohmann::json cycles = nlohmann::json::array();
  bool all_valid = true;
  if (!o.json) {
    if (saved)
      std::cout << o.mesh << ": an adapted mesh of " << mesh.leaf_root.size() << " triangles, rebuilt from its start mesh\n";
    std::cout << o.mesh << ": " << mesh.num_elements() << " triangles, " << mesh.num_faces() << " faces, "
              << forest.start_colors() << " colors (at most " << 2 * forest.start_colors()
              << " after refinement), order " << ordering.name << "; maximum level " << o.max_level << ", backend "
              << o.backend << "\n";
    print_header();
  }
  auto record = [&](const std::string& kind, const std::string& name, const adapt::AdaptReport& r) {
    all_valid = all_valid && r.valid();
    cycles.push_back(cycle_json(kind, r));
    if (!o.json) print_cycle(name, r);
  };
  for (int c = 0; c < o.cycles; ++c) {
    forest.flag_random(o.refine, o.coarsen, o.seed, std::uint64_t(c));
    record("random", std::to_string(c + 1), forest.adapt());
  }
  // The ordering of the mesh the random cycles leave (the round trip returns to the start mesh's).
  const OrderingMetrics after = leaf_metrics(forest.to_host());
  bool identical = false;
  if (o.roundtrip) {
    for (int l = 0; l < o.max_level; ++l) {
      forest.flag_all(true, false);
      record("refine_all", "refine all", forest.adapt());
    }
    for (int l = 0; l < o.max_level; ++l) {
      forest.flag_all(false, true);
      record("coarsen_all", "coarsen all", forest.adapt());
    }
    const std::string difference = forest.difference_from(mesh);
    identical = difference.empty();
    if (!o.json)
      std::cout << "round trip: " << (identical ? "faces and colors identical to the start mesh" : "differs: " + difference)
                << "\n";
  }
#if KEMPE_HAVE_VTK
  if (!o.vtk.empty()) output::write_adapted_mesh(o.vtk, forest.to_host());
#endif
  if (!o.save.empty()) {
    // The start mesh with the leaves: read back, the same refinements rebuild the same mesh and colors.
    Mesh out = mesh;
    const adapt::LeafMesh leaves = forest.to_host();
    out.leaf_root = leaves.root;
    out.leaf_path.assign(leaves.path.begin(), leaves.path.end());
    out.leaf_level.assign(leaves.level.begin(), leaves.level.end());
    save_mesh(out, o.save);
  }
  if (o.json) {
    nlohmann::json j;
    j["mesh"] = o.mesh;
    j["backend"] = o.backend;
    j["start"] = {{"elements", mesh.num_elements()}, {"faces", mesh.num_faces()}, {"colors", forest.start_colors()}};
    j["max_level"] = o.max_level;
    j["order"] = std::string(ordering.name);
    j["seed"] = o.seed;
    j["cycles"] = cycles;
    j["ordering_before"] = metrics_json(before);
    j["ordering_after"] = metrics_json(after);
    j["bytes"] = forest.bytes();
    if (o.roundtrip) j["roundtrip_identical"] = identical;
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << std::setprecision(3) << "ordering before and after the random cycles: bandwidth " << before.bandwidth << " -> " << after.bandwidth
              << ", profile " << before.profile << " -> " << after.profile << ", coalesced reads left "
              << before.coalesced_left << " -> " << after.coalesced_left << ", right " << before.coalesced_right
              << " -> " << after.coalesced_right << "\n";
    if (!o.vtk.empty()) std::cout << "wrote " << o.vtk << "/elements.vtu and " << o.vtk << "/faces.vtu\n";
    if (!o.save.empty()) std::cout << "wrote " << o.save << " (the start mesh and the refinement tree)\n";
    std::cout << "memory: " << (forest.bytes() >> 20) << " MiB for " << forest.num_elements() << " leaves\n";
  }
  if (!all_valid) throw ExitRequest{1};
  if (o.roundtrip && !identical) throw ExitRequest{1};
}

}  // namespace

void add_adapt_command(CLI::App& app) {
  auto o = std::make_shared<AdaptOptions>();
  CLI::App* cmd = app.add_subcommand(
      "adapt", "Refine and coarsen a triangle mesh in random cycles, mapping face colors to the children (no "
               "recoloring), and check every cycle");
  cmd->add_option("MESH", o->mesh, "Triangle mesh: .msh, .geo or .kmesh")->required();
  cmd->add_option("--max-level", o->max_level, "Deepest refinement level")
      ->check(CLI::Range(0, adapt::max_level_limit))
      ->capture_default_str();
  cmd->add_option("--refine", o->refine, "Fraction of the leaves flagged for refinement in each cycle")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--coarsen", o->coarsen, "Fraction of the sibling groups flagged for coarsening in each cycle")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--cycles", o->cycles, "Random cycles")->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed of the random flags (same seed, same meshes on every backend)")
      ->capture_default_str();
  cmd->add_flag("--roundtrip", o->roundtrip,
                "After the cycles, refine everything to the maximum level, coarsen it back, and compare with the start mesh");
  cmd->add_option("--backend", o->backend, "cpu, cuda or auto")->capture_default_str();
  cmd->add_option("--order", o->order,
                  "Ordering of the start mesh (color_renumber, rcm, hilbert); the leaves keep it, each tree depth first")
      ->capture_default_str();
  cmd->add_option("--vtk", o->vtk,
                  "After the last cycle, write DIR/elements.vtu (leaves: level, element) and DIR/faces.vtu (faces: "
                  "color, left, right, boundary) for ParaView");
  cmd->add_option("--save", o->save,
                  "After the last cycle, write OUT.kmesh: the start mesh and the leaves; kempe adapt reads it back "
                  "(refining the start mesh to those leaves) and can coarsen it");
  cmd->add_option("--size", o->size, "Element size when meshing a .geo file")->check(CLI::PositiveNumber);
  cmd->add_flag("--json", o->json,
                "Print one JSON object (cycles with elements, faces, hanging_faces, max_level, colors, valid, seconds; "
                "roundtrip_identical)");
  cmd->callback([o] { run_adapt(*o); });
}

}  // namespace kempe::cli
