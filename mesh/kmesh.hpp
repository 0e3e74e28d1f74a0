// The native binary mesh format (.kmesh): a processed mesh (connectivity, geometry, boundary tags) that can
// be reloaded without Gmsh, e.g. on a GPU machine that has CUDA alone.
//
// Layout (little endian): header { char magic[8] = "KEMPEMSH"; u32 version; u32 byte_order = 0x01020304;
// u64 payload_bytes; u64 fnv1a64(payload) } then the payload: u64 section count, then per section
// { char name[32]; u64 kind; u64 count; u64 bytes; data padded to 8 bytes }. Readers skip sections they do not
// know, so later additions (colors, permutations) keep older files readable within one version.
#pragma once

#include <cstdint>
#include <string>

#include "mesh/mesh.hpp"

namespace kempe {

inline constexpr std::uint32_t kmesh_version = 1;

/// Writes the mesh to `path` (through a temporary file renamed at the end: a failed write leaves an existing
/// file intact). Throws MeshError naming the file when it cannot be written.
void write_kmesh(const Mesh& mesh, const std::string& path);

/// Reads a mesh written by write_kmesh. Throws MeshError for a missing file, a file that is not a .kmesh, a
/// file of another version, a truncated file, a checksum mismatch or inconsistent contents.
Mesh read_kmesh(const std::string& path);

/// 64-bit FNV-1a hash, the .kmesh checksum.
std::uint64_t fnv1a64(const void* data, std::size_t bytes, std::uint64_t hash = 0xcbf29ce484222325ull);

}  // namespace kempe
