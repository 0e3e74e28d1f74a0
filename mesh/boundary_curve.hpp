// The curved boundary that a straight-sided 2D mesh samples. Gmsh puts the boundary vertices on the true curve
// (a spline, a circle), but the faces between them are chords: a slip wall imposed with the chord's normal
// sees a polygon, whose corners make entropy and cap the order of accuracy (the bump case: h^1.2 instead of
// h^3 at p = 2). Krivodonova & Berger ("High-order accurate implementation of solid wall boundary conditions
// in curved geometries", J. Comput. Phys. 211, 2006) keep the straight elements and impose the wall with the
// curve's normal at each face quadrature point; this gives that normal, from the mesh alone.
#pragma once

#include <vector>

#include "mesh/mesh.hpp"

namespace kempe {

/// Boundaries turning by more than this at a vertex have a corner there (a step, a wedge, a rectangle's
/// corner): the curve is not continued across it.
inline constexpr double default_corner_degrees = 30;

/// For each boundary face of a 2D triangle mesh, the direction of the boundary curve through it relative to
/// the face's own: angles in radians, counterclockwise from the face's direction (from its first vertex to its
/// second, face_vertices order), of the curve's tangent at the face's first vertex, its middle and its second
/// vertex; [faces][3], zero for interior faces. The curve through a face is the cubic, in the cumulative
/// chord length, through its two vertices and the next boundary vertex on each side along the same boundary
/// group; a side with a corner (a turn above `corner_degrees`), another group or no further vertex is left
/// out (a quadratic, or the face itself). Empty when no face bends (straight boundaries: nothing to store).
/// Accuracy: the tangent of a cubic through points of a smooth curve is off by O(h^3).
std::vector<double> boundary_tangent_angles(const Mesh& mesh, double corner_degrees = default_corner_degrees);

}  // namespace kempe
