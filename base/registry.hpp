// Choosing things by name (fluxes, integrators, boundary conditions, limiters, coloring algorithms, orderings):
// the one lookup and the one error message for a name that is not known, with the closest known name as a
// suggestion.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kempe {

/// Levenshtein distance (insertions, deletions, substitutions), for suggestions.
int edit_distance(std::string_view a, std::string_view b);

/// "unknown flux 'hlcc'; did you mean 'hllc'? known: rusanov, hll, hllc, roe". The suggestion appears when
/// a known name is within a third of the longer name's length (at least 1 edit) of the given one.
std::string unknown_name_message(std::string_view kind, std::string_view name, const std::vector<std::string_view>& known);

/// One entry of a registry: the value, its name (the YAML/CLI spelling) and a line for docs and messages.
template <class T>
struct Named {
  T value;
  std::string_view name, description;
};

/// The entry called `name` of a registry: any table (array or container) of entries with a `name` member, such
/// as Named<T> (whose `.value` is then the thing chosen). std::invalid_argument with unknown_name_message for a
/// name the table does not hold.
template <class Table>
const auto& find_by_name(std::string_view kind, std::string_view name, const Table& table) {
  for (const auto& entry : table)
    if (entry.name == name) return entry;
  std::vector<std::string_view> known;
  for (const auto& entry : table) known.push_back(entry.name);
  throw std::invalid_argument(unknown_name_message(kind, name, known));
}

}  // namespace kempe
