// `kempe mesh ...`: inspect, convert and generate meshes.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "base/text.hpp"
#include "mesh/kmesh.hpp"
#include "mesh/load.hpp"
#include "mesh/report.hpp"
#include "solver/cli/commands.hpp"
#if KEMPE_HAVE_GMSH
#include "mesh/gmsh_io.hpp"
#endif

namespace kempe::cli {
namespace {

using clock_type = std::chrono::steady_clock;
double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

/// 1234567 -> "1,234,567": counts of a million faces should be readable at a glance.
std::string grouped(long long n) {
  const std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out = n < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

nlohmann::json summary_json(const MeshSummary& s, double seconds) {
  nlohmann::json j;
  j["mesh"] = s.source;
  if (!s.origin.empty()) j["origin"] = s.origin;
  j["dim"] = s.dim;
  j["space_dim"] = s.space_dim;
  j["elements"] = s.elements;
  j["element_types"] = nlohmann::json::object();
  for (const auto& [name, count] : s.element_types) j["element_types"][name] = count;
  j["nodes"] = s.nodes;
  j["faces"] = s.faces;
  j["interior_faces"] = s.interior_faces;
  j["boundary_faces"] = s.boundary_faces;
  j["boundary_tags"] = nlohmann::json::object();
  for (const auto& [name, count] : s.boundary_by_tag) j["boundary_tags"][name] = count;
  j["max_faces_per_element"] = s.max_faces_per_element;
  if (s.surface) j["euler_characteristic"] = s.euler_characteristic;
  j["total_volume"] = s.total_volume;
  j["min_volume"] = s.min_volume;
  j["max_volume"] = s.max_volume;
  j["flipped_elements"] = s.report.flipped_elements;
  j["warnings"] = s.report.warnings;
  j["seconds"] = seconds;
  j["read_seconds"] = s.report.read_seconds;
  j["build_seconds"] = s.report.build_seconds;
  return j;
}

void print_summary(const MeshSummary& s, double seconds, std::ostream& out) {
  auto row = [&](const char* key) -> std::ostream& {
    out << "  ";
    out.width(22);
    out << std::left << key;
    return out;
  };
  out << "mesh " << escaped(s.source);
  if (!s.origin.empty()) out << " (origin: " << escaped(s.origin) << ")";
  out << "\n";
  row("dimension") << s.dim << (s.dim == 2 ? (s.space_dim == 2 ? " (planar)" : " (surface in 3D)") : "") << "\n";
  row("elements") << grouped(s.elements) << " (";
  for (std::size_t i = 0; i < s.element_types.size(); ++i)
    out << (i ? ", " : "") << s.element_types[i].first << " " << grouped(s.element_types[i].second);
  out << ")\n";
  row("nodes") << grouped(s.nodes) << "\n";
  row("faces") << grouped(s.faces) << " (interior " << grouped(s.interior_faces) << ", boundary "
               << grouped(s.boundary_faces) << ")\n";
  if (!s.boundary_by_tag.empty()) {
    row("boundary faces by tag");
    for (std::size_t i = 0; i < s.boundary_by_tag.size(); ++i)
      out << (i ? ", " : "") << escaped(s.boundary_by_tag[i].first) << " " << grouped(s.boundary_by_tag[i].second);
    out << "\n";
  }
  row("max faces per element") << s.max_faces_per_element << " (the fewest colors a face coloring can use)\n";
  if (s.surface) row("Euler characteristic") << s.euler_characteristic << " (V - E + F)\n";
  row(s.dim == 2 ? "area" : "volume") << s.total_volume << " (element min " << s.min_volume << ", max "
                                      << s.max_volume << ")\n";
  row("flipped elements") << grouped(s.report.flipped_elements) << " (mirrored to positive orientation)\n";
  row("time") << seconds << " s (read " << s.report.read_seconds << " s, connectivity and geometry "
              << s.report.build_seconds << " s)\n";
  for (const auto& w : s.report.warnings) out << "warning: " << shown_message(w) << "\n";
}

struct InfoOptions {
  std::string mesh;
  double size = 0;
  bool json = false;
};

struct ConvertOptions {
  std::string input, output;
  double size = 0;
  double msh_version = 4.1;
  bool binary = false;
};

struct GenerateOptions {
  std::string kind;  // rect, box, sphere, torus
  long long elements = 0;
  std::string preset;
  std::string type;
  double width = 1, height = 1;
  int seed = 1;
  std::string out;
  bool json = false;
};

void run_info(const InfoOptions& o) {
  const auto t0 = clock_type::now();
  LoadOptions lo;
  lo.mesh_size = o.size;
  const Mesh mesh = load_mesh(o.mesh, lo);
  const double seconds = seconds_since(t0);
  const MeshSummary s = summarize(mesh);
  if (o.json) std::cout << summary_json(s, seconds).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  else print_summary(s, seconds, std::cout);
}

void run_convert(const ConvertOptions& o) {
  const auto t0 = clock_type::now();
  LoadOptions lo;
  lo.mesh_size = o.size;
  const Mesh mesh = load_mesh(o.input, lo);
  const std::string ext = mesh_extension(o.output);
  if (ext == ".msh") {
#if KEMPE_HAVE_GMSH
    write_msh(mesh, o.output, o.msh_version, o.binary);
#else
    save_mesh(mesh, o.output);  // reports that this build cannot write .msh
#endif
  } else {
    save_mesh(mesh, o.output);
  }
  std::cout << "wrote " << o.output << ": " << grouped(mesh.num_elements()) << " elements, "
            << grouped(mesh.num_faces()) << " faces (" << seconds_since(t0) << " s)\n";
}

void run_generate(const GenerateOptions& o) {
#if KEMPE_HAVE_GMSH
  const auto t0 = clock_type::now();
  const std::string ext = mesh_extension(o.out);
  if (ext != ".msh" && ext != ".kmesh")
    throw MeshError(o.out + ": --out must end in .msh or .kmesh");
  const std::string msh_path = ext == ".msh" ? o.out : "";
  long long elements = o.elements;
  if (!o.preset.empty()) {
    if (o.kind != "rect") throw MeshError("--preset is for `rect` meshes (the coloring paper's Rect A..E)");
    elements = rect_preset_elements(o.preset[0]);
  }
  if (elements <= 0) throw MeshError("give --elements N (N > 0) or --preset");
  RawMesh raw;
  if (o.kind == "rect") {
    RectSpec spec;
    spec.width = o.width;
    spec.height = o.height;
    spec.elements = elements;
    spec.seed = o.seed;
    spec.type = o.type == "quad" ? RectElements::quadrilaterals : RectElements::triangles;
    raw = generate_rect(spec, msh_path);
  } else if (o.kind == "box") {
    BoxSpec spec;
    spec.elements = elements;
    spec.seed = o.seed;
    spec.type = o.type == "hex"     ? BoxElements::hexahedra
                : o.type == "prism" ? BoxElements::prisms
                : o.type == "hybrid" ? BoxElements::hybrid
                                     : BoxElements::tetrahedra;
    raw = generate_box(spec, msh_path);
  } else {
    SurfaceSpec spec;
    spec.elements = elements;
    spec.seed = o.seed;
    spec.shape = o.kind == "torus" ? ClosedSurface::torus : ClosedSurface::sphere;
    spec.quadrilaterals = o.type == "quad";
    raw = generate_surface(spec, msh_path);
  }
  const double generate_seconds = seconds_since(t0);
  const Mesh mesh = build_mesh(std::move(raw));
  if (ext == ".kmesh") write_kmesh(mesh, o.out);
  const MeshSummary s = summarize(mesh);
  if (o.json) {
    auto j = summary_json(s, seconds_since(t0));
    j["mesh"] = o.out;
    j["generate_seconds"] = generate_seconds;
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << "wrote " << o.out << ": " << grouped(s.elements) << " elements (";
    for (std::size_t i = 0; i < s.element_types.size(); ++i)
      std::cout << (i ? ", " : "") << s.element_types[i].first << " " << grouped(s.element_types[i].second);
    std::cout << "), " << grouped(s.faces) << " faces, generated in " << generate_seconds << " s\n";
  }
#else
  (void)o;
  throw MeshError("this kempe was built without the Gmsh SDK, which mesh generation needs");
#endif
}

}  // namespace

void add_mesh_commands(CLI::App& app) {
  CLI::App* mesh = app.add_subcommand("mesh", "Inspect, convert and generate meshes");
  mesh->require_subcommand(1);

  auto info = std::make_shared<InfoOptions>();
  CLI::App* info_cmd = mesh->add_subcommand(
      "info", "Read a mesh, build its faces and geometry, and print elements by type, nodes, faces, boundary "
              "faces by tag, the largest face count of any element and the Euler characteristic of 2D meshes");
  info_cmd->add_option("MESH", info->mesh, "Mesh file: .msh (Gmsh 2.2 or 4.x, ASCII or binary), .geo or .kmesh")->required();
  info_cmd->add_option("--size", info->size, "Element size when meshing a .geo file (default: the file's own sizes)")
      ->check(CLI::PositiveNumber);
  info_cmd->add_flag("--json", info->json, "Print one JSON object instead of text");
  info_cmd->callback([info] { run_info(*info); });

  auto conv = std::make_shared<ConvertOptions>();
  CLI::App* conv_cmd = mesh->add_subcommand(
      "convert", "Convert a mesh between .msh/.geo and the native .kmesh format (processed connectivity and "
                 "geometry, readable without Gmsh)");
  conv_cmd->add_option("IN", conv->input, "Input mesh: .msh, .geo or .kmesh")->required();
  conv_cmd->add_option("OUT", conv->output, "Output mesh: .kmesh or .msh")->required();
  conv_cmd->add_option("--size", conv->size, "Element size when meshing a .geo file")->check(CLI::PositiveNumber);
  conv_cmd->add_option("--msh-version", conv->msh_version, "Gmsh format of a .msh output: 2.2 or 4.1")
      ->check(CLI::IsMember({2.2, 4.1}));
  conv_cmd->add_flag("--binary", conv->binary, "Write a binary .msh output");
  conv_cmd->callback([conv] { run_convert(*conv); });

  auto gen = std::make_shared<GenerateOptions>();
  CLI::App* gen_cmd = mesh->add_subcommand(
      "generate", "Generate a benchmark mesh through Gmsh: `rect` (unstructured triangles or quadrilaterals on a "
                  "rectangle), `box` (tetrahedra, hexahedra, prisms or a hybrid mix on the unit cube), `sphere` "
                  "and `torus` (closed surfaces in 3D)");
  gen_cmd->add_option("KIND", gen->kind, "rect, box, sphere or torus")
      ->required()
      ->check(CLI::IsMember({"rect", "box", "sphere", "torus"}));
  gen_cmd->add_option("--elements,-n", gen->elements, "Approximate number of elements")->check(CLI::PositiveNumber);
  gen_cmd->add_option("--preset", gen->preset, "rect only: the coloring paper's Rect A..E sizes (15k to 3.8M triangles)")
      ->check(CLI::IsMember({"A", "B", "C", "D", "E"}));
  gen_cmd->add_option("--type", gen->type,
                      "Element type: tri or quad (rect, sphere, torus; default tri); tet, hex, prism or hybrid "
                      "(box; default tet)")
      ->check(CLI::IsMember({"tri", "quad", "tet", "hex", "prism", "hybrid"}));
  gen_cmd->add_option("--width", gen->width, "rect only: width (default 1)")->check(CLI::PositiveNumber);
  gen_cmd->add_option("--height", gen->height, "rect only: height (default 1)")->check(CLI::PositiveNumber);
  gen_cmd->add_option("--seed", gen->seed, "Seed of Gmsh's random perturbations (default 1)");
  gen_cmd->add_option("--out,-o", gen->out, "Output file: .msh or .kmesh")->required();
  gen_cmd->add_flag("--json", gen->json, "Print the generated mesh's summary as JSON");
  gen_cmd->callback([gen] {
    const bool surface_or_rect = gen->kind != "box";
    if (!gen->type.empty()) {
      const bool tri_quad = gen->type == "tri" || gen->type == "quad";
      if (surface_or_rect != tri_quad)
        throw CLI::ValidationError("--type", "'" + gen->type + "' does not apply to `" + gen->kind +
                                                  "` meshes (rect, sphere, torus: tri or quad; box: tet, hex, prism or hybrid)");
    }
    run_generate(*gen);
  });
}

}  // namespace kempe::cli
