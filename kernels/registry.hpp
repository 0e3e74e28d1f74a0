// Choosing things by name (fluxes, integrators, boundary conditions, limiters): the one error message for a
// name that is not known, with the closest known name as a suggestion.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kempe {

/// Levenshtein distance (insertions, deletions, substitutions), for suggestions.
int edit_distance(std::string_view a, std::string_view b);

/// "unknown flux 'hlcc'; did you mean 'hllc'? known: rusanov, hll, hllc, roe". The suggestion appears when
/// a known name is within a third of the longer name's length (at least 1 edit) of the given one.
std::string unknown_name_message(std::string_view kind, std::string_view name, const std::vector<std::string_view>& known);

}  // namespace kempe
