// Name lookup messages (see registry.hpp).
#include "base/registry.hpp"

#include <algorithm>

namespace kempe {

int edit_distance(std::string_view a, std::string_view b) {
  std::vector<int> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const int above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string unknown_name_message(std::string_view kind, std::string_view name, const std::vector<std::string_view>& known) {
  std::string message = "unknown " + std::string(kind) + " '" + std::string(name) + "'";
  std::string_view best;
  int best_distance = 0;
  for (const std::string_view k : known) {
    const int d = edit_distance(name, k);
    if (best.empty() || d < best_distance) {
      best = k;
      best_distance = d;
    }
  }
  const int allowed = std::max<int>(1, static_cast<int>(std::max(name.size(), best.size())) / 3);
  if (!best.empty() && best_distance <= allowed) message += "; did you mean '" + std::string(best) + "'?";
  message += best_distance <= allowed && !best.empty() ? " known: " : "; known: ";
  for (std::size_t i = 0; i < known.size(); ++i) message += (i ? ", " : "") + std::string(known[i]);
  return message;
}

}  // namespace kempe
