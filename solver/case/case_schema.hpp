// The case-file schema: every key a case (YAML) may hold, with its type, default, allowed values and a line of
// description, in one table. The table drives the loader's checks (solver/case/case_file.hpp), the error messages
// ("did you mean"), `kempe run --help-config` and docs/case-reference.md. Choices come from the registries
// (fluxes, limiters, strategies, ...), so a new registry entry is a new allowed value everywhere at once.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kempe::cases {

enum class ValueType { text, integer, real, boolean, choice, real_list, choice_list };

/// One key. `key` is a dotted path; in `boundaries.*.condition` the `*` stands for a boundary group name of the
/// mesh. An empty `default_value` means the key is required (or, with `optional`, may be absent).
struct Setting {
  std::string_view key;
  ValueType type;
  std::string_view default_value;
  std::string_view description;
  std::vector<std::string_view> (*choices)() = nullptr;  ///< allowed names, for ValueType::choice and choice_list
  double minimum = -1e300, maximum = 1e300;              ///< inclusive bounds, for integer and real
  bool optional = false;                                 ///< may be absent, with no default
  std::size_t list_size = 0;                             ///< for real_list: the number of values
};

/// Every key, in the order of the reference.
const std::vector<Setting>& settings();

/// The setting for a concrete key (boundaries.inflow.condition matches boundaries.*.condition); nullptr if none.
const Setting* find_setting(std::string_view key);

/// The closest known key to `key` within a third of its length ("" if none): for "did you mean".
std::string closest_key(std::string_view key);

/// "text", "integer", "real in [0, 1]", "one of: rusanov, hll, hllc, roe", ...
std::string describe_type(const Setting& setting);

/// The reference as a Markdown table (docs/case-reference.md is this text) and as plain text (--help-config).
std::string reference_markdown();
std::string reference_text();

}  // namespace kempe::cases
