// Choosing things by name (fluxes, integrators, boundary conditions, limiters): the one error message for a
// name that is not known, with the closest known name as a suggestion.
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

/// The value of the entry called `name`; std::invalid_argument with unknown_name_message otherwise.
template <class T, std::size_t N>
T find_by_name(std::string_view kind, std::string_view name, const Named<T> (&table)[N]) {
  std::vector<std::string_view> known;
  for (const Named<T>& entry : table) {
    if (entry.name == name) return entry.value;
    known.push_back(entry.name);
  }
  throw std::invalid_argument(unknown_name_message(kind, name, known));
}

/// The backend called `name`: "cpu", "cuda", or "auto" (cuda when a device is present, else cpu).
/// std::invalid_argument for another name, and for "cuda" on a machine or build without a CUDA device.
enum class Backend;
Backend backend_from_name(std::string_view name);

}  // namespace kempe
