// A case file (YAML, read with yaml-cpp) checked against the schema (case_schema.hpp): every key known, every
// value of its type and within its range or choices, required keys present, defaults filled in, `--set`
// overrides applied. Errors are std::invalid_argument "FILE:LINE:COLUMN: KEY: what was expected" (yaml-cpp's
// marks; `--set KEY` for an override), with "did you mean" for a misspelt key or name.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace kempe::cases {

/// Where a value came from: the case file (line and column, 1-based), an override, or the schema's default.
struct Origin {
  enum class Kind { file, override, default_value } kind = Kind::default_value;
  int line = 0, column = 0;
};

class CaseFile {
 public:
  /// Reads the case at `path`, checks it and applies the overrides ("key.path=value", as after --set).
  static CaseFile load(const std::string& path, const std::vector<std::string>& overrides = {});
  /// The same from YAML text; `name` stands for the file in messages.
  static CaseFile parse(const std::string& yaml, const std::string& name, const std::vector<std::string>& overrides = {});

  const std::string& source() const { return source_; }
  bool has(const std::string& key) const { return values_.count(key) != 0; }
  /// Typed values of a key the schema knows (std::logic_error for a key that is absent: a programming error,
  /// since load() has checked the file).
  const std::string& text(const std::string& key) const;
  double real(const std::string& key) const;
  long long integer(const std::string& key) const;
  bool boolean(const std::string& key) const;
  std::vector<double> real_list(const std::string& key) const;
  /// The names of a choice_list key.
  std::vector<std::string> text_list(const std::string& key) const;
  Origin origin(const std::string& key) const;
  /// The boundary groups the case assigns (the * of boundaries.*.condition), sorted.
  std::vector<std::string> boundary_groups() const;

  /// The resolved configuration as YAML, every key with its value and, as a comment, where it came from: echoed
  /// at start and saved with the output.
  std::string resolved_yaml() const;

 private:
  struct Value {
    std::string text;                // a scalar's text; a list's items joined by ", "
    std::vector<std::string> items;  // a list's items
    Origin origin;
  };
  std::string source_;
  std::map<std::string, Value> values_;

  const Value& at(const std::string& key) const;
  friend struct CaseFileBuilder;
};

}  // namespace kempe::cases
