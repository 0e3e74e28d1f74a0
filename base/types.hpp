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

}  // namespace kempe
