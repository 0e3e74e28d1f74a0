// Periodic boundaries: two boundary groups whose faces match under a translation become interior faces.
#pragma once

#include <array>
#include <string_view>

#include "mesh/mesh.hpp"

namespace kempe {

/// Joins every face of boundary group `group_a` to the face of group `group_b` at its position plus `shift`:
/// each pair becomes one interior (periodic) face between the two elements, with the conventions of Mesh
/// (left element the lower-numbered, normal out of it, vertices in its face order); the faces are renumbered
/// and the group names stay. Geometry of a periodic face is its left element's. Call it before coloring:
/// the dual graph gains the periodic faces as edges (a torus for a doubly periodic rectangle).
/// Throws MeshError naming the group and the first face that has no partner, when a group is missing or
/// empty, when the groups have different face counts, or when the mesh is already colored.
void make_periodic(Mesh& mesh, std::string_view group_a, std::string_view group_b, const std::array<double, 3>& shift);

}  // namespace kempe
