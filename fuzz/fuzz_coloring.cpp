// Fuzz target: the colorings and orderings on valid but odd meshes. The input chooses a node set (on a sphere, in
// a plane or in a cube) and elements over it (triangles and quadrilaterals, or tetrahedra): pinched vertices,
// non-manifold edges, several components, elements sharing several faces, closed surfaces of any genus, all
// that build_mesh accepts. Every registered algorithm that takes the mesh must color it validly within its
// effort bound (color_faces checks the result and throws std::logic_error, a finding, when it is invalid), and
// every ordering must apply. The third byte is the seed, and chooses the algorithm and the ordering.
#include <cmath>
#include <numbers>

#include "coloring/coloring.hpp"
#include "coloring/reorder.hpp"
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const int mode = data[0] % 3;  // 0: surface on a sphere, 1: planar, 2: tetrahedra
  const int num_nodes = 4 + data[1] % 60;
  const std::uint64_t seed = data[2];
  data += 3;
  size -= 3;

  kempe::RawMesh raw;
  raw.source = "fuzz-mesh";
  raw.dim = mode == 2 ? 3 : 2;
  for (int i = 0; i < num_nodes; ++i) {
    // Spread, fixed positions: a Fibonacci sphere, a jittered grid, a scrambled lattice in the unit cube.
    const double t = (i + 0.5) / num_nodes, golden = std::numbers::pi * (3 - std::sqrt(5.0));
    double x = 0, y = 0, z = 0;
    if (mode == 0) {
      z = 1 - 2 * t;
      const double r = std::sqrt(1 - z * z);
      x = r * std::cos(golden * i);
      y = r * std::sin(golden * i);
    } else if (mode == 1) {
      x = i % 8 + 0.3 * std::sin(1.7 * i);
      y = i / 8 + 0.3 * std::cos(2.3 * i);
    } else {
      x = std::fmod(0.618034 * i, 1.0);
      y = std::fmod(0.754878 * i, 1.0);
      z = std::fmod(0.569840 * i, 1.0);
    }
    raw.x.push_back(x);
    raw.y.push_back(y);
    raw.z.push_back(z);
    raw.node_tag.push_back(i + 1);
  }
  std::size_t at = 0;
  std::int64_t tag = 1;
  kempe::index_t v[4];
  while (at < size) {
    kempe::ElementType type = mode == 2 ? kempe::ElementType::tetrahedron : kempe::ElementType::triangle;
    if (mode != 2 && data[at] >= 0xC0) type = kempe::ElementType::quadrilateral;
    const int nv = type == kempe::ElementType::triangle ? 3 : 4;
    if (at + 1 + nv > size) break;
    for (int k = 0; k < nv; ++k) v[k] = data[at + 1 + k] % num_nodes;
    raw.add_element(type, v, tag++);
    at += 1 + nv;
  }
  kempe::Mesh mesh;
  if (!kempe::fuzz::accepted(raw.source, [&] { mesh = kempe::build_mesh(std::move(raw)); })) return 0;

  // One algorithm and one ordering per input, chosen by the seed byte: every pair is reached, and an input costs
  // one coloring, not all of them.
  const auto& algorithms = kempe::coloring_algorithms();
  const kempe::ColoringAlgorithm& algorithm = algorithms[seed % algorithms.size()];
  const kempe::Ordering& ordering = kempe::orderings()[seed / algorithms.size() % kempe::orderings().size()];
  if (algorithm.cannot_color && !algorithm.cannot_color(mesh).empty()) return 0;
  kempe::ColoringOptions options;
  options.algorithm = std::string(algorithm.name);
  options.seed = seed;
  kempe::FaceColoring coloring = kempe::color_faces(mesh, options);
  kempe::apply_ordering(mesh, coloring, ordering.compute(mesh, coloring));
  return 0;
}
