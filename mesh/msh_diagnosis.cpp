// msh_diagnosis (gmsh_io.hpp): when Gmsh died on an ASCII .msh file, find the line that killed it.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "mesh/gmsh_io.hpp"

namespace kempe {
namespace {

/// Nodes of the MSH element types up to order 2 and the common higher ones (Gmsh's numbering); 0 for the others.
int msh_type_nodes(long type) {
  static constexpr int nodes[] = {0, 2, 3, 4, 4, 8, 6, 5, 3, 6, 9, 10, 27, 18, 14, 1, 8, 20, 15, 13, 9, 10, 12, 15,
                                  15, 21, 4, 5, 6, 20, 35, 56};
  return type >= 1 && type < static_cast<long>(std::size(nodes)) ? nodes[type] : 0;
}

class Lines {
 public:
  explicit Lines(const std::string& path) : in_(path, std::ios::binary) {}
  bool next(std::string& line) {
    if (!std::getline(in_, line)) return false;
    ++number_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }
  long number() const { return number_; }
  std::string at(const std::string& section) const {
    return "line " + std::to_string(number_) + " (" + section + ")";
  }

 private:
  std::ifstream in_;
  long number_ = 0;
};

std::vector<long long> numbers(const std::string& line) {
  std::istringstream s(line);
  std::vector<long long> values;
  long long v = 0;
  while (s >> v) values.push_back(v);
  return values;
}

constexpr long long max_tag = (1LL << 31) - 1;

}  // namespace

std::string msh_diagnosis(const std::string& path) {
  Lines in(path);
  std::string line;
  if (!in.next(line) || line.rfind("$MeshFormat", 0) != 0 || !in.next(line)) return {};
  double version = 0;
  int file_type = -1;
  if (!(std::istringstream(line) >> version >> file_type) || file_type != 0) return {};  // binary: not here
  const bool v2 = version < 3, v4 = version >= 4 && version < 5;
  if (!v2 && !v4) return {};
  std::unordered_set<long long> nodes;
  while (in.next(line)) {
    if (line.rfind("$PhysicalNames", 0) == 0) {
      if (!in.next(line)) return {};
      const long long count = std::atoll(line.c_str());
      for (long long i = 0; i < count && in.next(line); ++i) {
        const std::vector<long long> v = numbers(line);
        if (!v.empty() && (v[0] < 0 || v[0] > 3))
          return in.at("$PhysicalNames") + ": a physical group of dimension " + std::to_string(v[0]) +
                 "; dimensions are 0 to 3";
      }
    } else if (line.rfind("$Nodes", 0) == 0 && v2) {
      if (!in.next(line)) return {};
      const long long count = std::atoll(line.c_str());
      for (long long i = 0; i < count && in.next(line); ++i) {
        const std::vector<long long> v = numbers(line);
        if (v.empty()) return in.at("$Nodes") + ": expected a node (tag x y z)";
        if (v[0] < 1 || v[0] > max_tag)
          return in.at("$Nodes") + ": node tag " + std::to_string(v[0]) + "; tags are 1 to 2^31 - 1";
        nodes.insert(v[0]);
      }
    } else if (line.rfind("$Nodes", 0) == 0 && v4) {
      if (!in.next(line)) return {};
      const std::vector<long long> header = numbers(line);  // blocks, nodes, min tag, max tag
      if (header.size() < 4) return in.at("$Nodes") + ": expected the header (blocks nodes min-tag max-tag)";
      long long listed = 0;
      for (long long b = 0; b < header[0]; ++b) {
        if (!in.next(line)) return {};
        const std::vector<long long> block = numbers(line);  // dim, entity, parametric, count
        if (block.size() < 4 || block[3] < 0) return in.at("$Nodes") + ": expected a block header (dim entity parametric count)";
        listed += block[3];
        if (listed > header[1])
          return in.at("$Nodes") + ": the blocks hold more nodes than the " + std::to_string(header[1]) +
                 " the section's header declares";
        for (long long i = 0; i < block[3]; ++i) {
          if (!in.next(line)) return {};
          const std::vector<long long> v = numbers(line);
          if (v.size() != 1 || v[0] < header[2] || v[0] > header[3] || v[0] < 1 || v[0] > max_tag)
            return in.at("$Nodes") + ": expected a node tag from " + std::to_string(header[2]) + " to " +
                   std::to_string(header[3]);
          nodes.insert(v[0]);
        }
        for (long long i = 0; i < block[3]; ++i)
          if (!in.next(line)) return {};
      }
    } else if (line.rfind("$Elements", 0) == 0 && v2) {
      if (!in.next(line)) return {};
      const long long count = std::atoll(line.c_str());
      for (long long i = 0; i < count && in.next(line); ++i) {
        const std::vector<long long> v = numbers(line);  // tag type ntags tags... nodes...
        if (v.size() < 3) return in.at("$Elements") + ": expected an element (tag type tag-count tags nodes)";
        const int expected = msh_type_nodes(static_cast<long>(v[1]));
        if (expected == 0) continue;  // a type Gmsh reports itself
        const long long ntags = v[2];
        if (ntags < 0 || ntags > 64 || (ntags >= 3 && v.size() > 5 && (v[5] < 0 || 3 + v[5] > ntags)))
          return in.at("$Elements") + ": element " + std::to_string(v[0]) + " has " + std::to_string(ntags) +
                 " tags, which do not fit its partition count";
        if (static_cast<long long>(v.size()) != 3 + ntags + expected)
          return in.at("$Elements") + ": element " + std::to_string(v[0]) + " has " +
                 std::to_string(static_cast<long long>(v.size()) - 3 - ntags) + " nodes; its type " +
                 std::to_string(v[1]) + " has " + std::to_string(expected);
        for (std::size_t k = static_cast<std::size_t>(3 + ntags); k < v.size(); ++k)
          if (!nodes.count(v[k]))
            return in.at("$Elements") + ": element " + std::to_string(v[0]) + " names node " +
                   std::to_string(v[k]) + ", which the $Nodes section does not define";
      }
    } else if (line.rfind("$Elements", 0) == 0 && v4) {
      if (!in.next(line)) return {};
      const std::vector<long long> header = numbers(line);  // blocks, elements, min tag, max tag
      if (header.size() < 4) return in.at("$Elements") + ": expected the header (blocks elements min-tag max-tag)";
      for (long long b = 0; b < header[0]; ++b) {
        if (!in.next(line)) return {};
        const std::vector<long long> block = numbers(line);  // dim, entity, type, count
        if (block.size() < 4 || block[3] < 0) return in.at("$Elements") + ": expected a block header (dim entity type count)";
        const int expected = msh_type_nodes(static_cast<long>(block[2]));
        for (long long i = 0; i < block[3]; ++i) {
          if (!in.next(line)) return {};
          if (expected == 0) continue;
          const std::vector<long long> v = numbers(line);  // tag nodes...
          if (static_cast<long long>(v.size()) != 1 + expected)
            return in.at("$Elements") + ": expected an element tag and " + std::to_string(expected) + " nodes";
          for (std::size_t k = 1; k < v.size(); ++k)
            if (!nodes.count(v[k]))
              return in.at("$Elements") + ": element " + std::to_string(v[0]) + " names node " +
                     std::to_string(v[k]) + ", which the $Nodes section does not define";
        }
      }
    }
  }
  return {};
}

}  // namespace kempe
