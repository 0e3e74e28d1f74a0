// What every module may include: the index type and the sentinels for "none".
#pragma once

#include <cstdint>

namespace kempe {

/// Index type for nodes, elements and faces: 32 bits hold the largest meshes a single GPU can store
/// (Rect E has 5.7M faces) and halve connectivity traffic compared to 64-bit indices.
using index_t = std::int32_t;

/// Marks "no element" on the right of a boundary face and "no boundary tag" on an interior face.
inline constexpr index_t no_element = -1;
inline constexpr std::int32_t no_boundary = -1;

/// Which part of an element's edge a face covers: all of it on a conforming mesh; on an adapted mesh the coarse
/// side of a hanging face covers half, the first half from the edge's first vertex (counterclockwise round
/// the element) to its midpoint, or the second half from the midpoint on.
inline constexpr std::int8_t whole_edge = 0, first_half = 1, second_half = 2;

}  // namespace kempe
