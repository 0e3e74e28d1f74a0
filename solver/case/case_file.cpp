// Reading and checking case files (see case_file.hpp). The only translation unit that includes yaml-cpp.
#include "solver/case/case_file.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "base/files.hpp"
#include "base/registry.hpp"
#include "solver/case/case_schema.hpp"

namespace kempe::cases {

struct CaseFileBuilder {
  CaseFile& out;

  /// "case.yaml:12:5: solver.order: " (line and column 1-based), or "--set solver.order: ".
  std::string where(const std::string& key, const Origin& origin) const {
    if (origin.kind == Origin::Kind::override) return "--set " + key + ": ";
    if (origin.kind == Origin::Kind::file)
      return out.source_ + ":" + std::to_string(origin.line) + ":" + std::to_string(origin.column) + ": " + key + ": ";
    return out.source_ + ": " + key + ": ";
  }
  [[noreturn]] void fail(const std::string& key, const Origin& origin, const std::string& what) const {
    throw std::invalid_argument(where(key, origin) + what);
  }

  static Origin origin_of(const YAML::Node& node, Origin::Kind kind) {
    Origin o;
    o.kind = kind;
    if (kind == Origin::Kind::file) {
      o.line = node.Mark().line + 1;
      o.column = node.Mark().column + 1;
    }
    return o;
  }

  /// Checks one scalar against its setting and returns its text.
  std::string checked_scalar(const std::string& key, const Setting& s, const std::string& text, const Origin& origin) const {
    switch (s.type) {
      case ValueType::text:
        if (text.empty()) fail(key, origin, "expected " + describe_type(s) + ", got an empty value");
        return text;
      case ValueType::boolean:
        if (text != "true" && text != "false") fail(key, origin, "expected true or false, got '" + text + "'");
        return text;
      case ValueType::integer:
      case ValueType::real: {
        errno = 0;
        char* end = nullptr;
        const double x = std::strtod(text.c_str(), &end);
        const bool number = !text.empty() && end == text.c_str() + text.size() && errno == 0 && std::isfinite(x);
        if (!number || (s.type == ValueType::integer && x != std::floor(x)))
          fail(key, origin, "expected " + describe_type(s) + ", got '" + text + "'");
        if (x < s.minimum || x > s.maximum) fail(key, origin, "expected " + describe_type(s) + ", got " + text);
        return text;
      }
      case ValueType::choice: {
        const std::vector<std::string_view> names = s.choices();
        if (std::find(names.begin(), names.end(), text) == names.end())
          fail(key, origin, unknown_name_message("value", text, names));
        return text;
      }
      case ValueType::real_list:
        fail(key, origin, "expected " + describe_type(s) + " such as [1.4, 0, 0, 1], got '" + text + "'");
      case ValueType::choice_list:
        fail(key, origin, "expected a " + describe_type(s) + " such as [density, pressure], got '" + text + "'");
    }
    return text;
  }

  /// Sets key from a YAML node (a scalar or a sequence), checked against the schema.
  void set(const std::string& key, const YAML::Node& node, const Origin& origin) {
    const Setting* s = find_setting(key);
    if (!s) {
      for (const Setting& section : settings())
        if (section.key.rfind(key + ".", 0) == 0)
          fail(key, origin, "expected a section of keys such as " + std::string(section.key) + ", got a value");
      const std::string near = closest_key(key);
      fail(key, origin, "unknown key" + (near.empty() ? std::string() : "; did you mean '" + near + "'?") +
                            " (kempe run --help-config lists every key)");
    }
    CaseFile::Value value;
    value.origin = origin;
    if (s->type == ValueType::choice_list || s->type == ValueType::real_list) {
      // A list: each item checked as a name or a real; real lists may have a fixed length.
      const bool names = s->type == ValueType::choice_list;
      const std::string expected = (names ? "expected a " : "expected ") + describe_type(*s);
      const char* example = names ? " such as [density, pressure]" : s->list_size == 4 ? " such as [1.4, 0, 0, 1]" : " such as [0.1, 0.2]";
      if (!node.IsSequence() || node.size() == 0 || (!names && s->list_size != 0 && node.size() != s->list_size))
        fail(key, origin, expected + example);
      Setting item = *s;
      item.type = names ? ValueType::choice : ValueType::real;
      for (const YAML::Node& x : node) {
        if (!x.IsScalar()) fail(key, origin, expected);
        value.items.push_back(checked_scalar(key, item, x.Scalar(), origin));
        value.text += (value.text.empty() ? "" : ", ") + value.items.back();
      }
    } else {
      if (!node.IsScalar()) fail(key, origin, "expected " + describe_type(*s) + ", got a " + (node.IsMap() ? "map" : "list"));
      value.text = checked_scalar(key, *s, node.Scalar(), origin);
    }
    out.values_[key] = std::move(value);
  }

  /// Walks a map of the file: maps nest keys, anything else is a value.
  void walk(const YAML::Node& node, const std::string& prefix) {
    for (const auto& entry : node) {
      if (!entry.first.IsScalar())
        fail(prefix.empty() ? "(top level)" : prefix, origin_of(entry.first, Origin::Kind::file), "a key must be a plain name");
      const std::string name = entry.first.Scalar();
      const std::string key = prefix.empty() ? name : prefix + "." + name;
      const Origin origin = origin_of(entry.first, Origin::Kind::file);
      if (out.values_.count(key)) fail(key, origin, "given twice");
      if (entry.second.IsMap()) {
        if (find_setting(key)) fail(key, origin, "expected a value, got a map");
        walk(entry.second, key);
      } else if (entry.second.IsNull()) {
        fail(key, origin, "no value given");
      } else {
        set(key, entry.second, origin_of(entry.second, Origin::Kind::file));
      }
    }
  }

  void override_with(const std::string& assignment) {
    const std::size_t eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0)
      throw std::invalid_argument("--set " + assignment + ": expected key.path=value, e.g. --set solver.order=2");
    const std::string key = assignment.substr(0, eq);
    Origin origin;
    origin.kind = Origin::Kind::override;
    YAML::Node node;
    const Setting* setting = find_setting(key);
    if (setting && setting->type == ValueType::text) {
      node = YAML::Node(assignment.substr(eq + 1));  // text as given: an expression may hold ": " or "#"
    } else {
      try {
        node = YAML::Load(assignment.substr(eq + 1));
      } catch (const YAML::Exception& e) {
        fail(key, origin, std::string("not a YAML value: ") + e.msg);
      }
    }
    if (node.IsNull()) fail(key, origin, "no value given");
    set(key, node, origin);
  }

  /// Defaults for absent keys, then what one key requires of another.
  void complete() {
    // The mesh comes from a file or from a generator: exactly one of the two keys.
    const bool file = out.values_.count("mesh.file") != 0, generator = out.values_.count("mesh.generator") != 0;
    if (!file && !generator)
      throw std::invalid_argument(out.source_ + ": missing key mesh.file (text) or mesh.generator (rectangle): the "
                                  "mesh, a Gmsh .msh or .geo file or a .kmesh relative to the case file, or a "
                                  "built-in mesh");
    if (file && generator)
      fail("mesh.generator", out.values_.at("mesh.generator").origin, "give either mesh.file or mesh.generator, not both");
    for (const Setting& s : settings()) {
      const std::string key(s.key);
      if (key.find('*') != std::string::npos || out.values_.count(key)) continue;
      if (!s.default_value.empty()) {
        CaseFile::Value value{std::string(s.default_value), {}, Origin{}};
        if (s.type == ValueType::choice_list || s.type == ValueType::real_list)
          for (std::size_t at = 0; at < value.text.size();) {  // "a, b, c"
            const std::size_t comma = std::min(value.text.find(", ", at), value.text.size());
            value.items.push_back(value.text.substr(at, comma - at));
            at = comma + 2;
          }
        out.values_[key] = std::move(value);
      } else if (!s.optional) {
        throw std::invalid_argument(out.source_ + ": missing key " + key + " (" + describe_type(s) + "): " + std::string(s.description));
      }
    }
    auto require = [&](const std::string& key, const std::string& because_key, const std::string& because) {
      if (!out.values_.count(key))
        fail(because_key, out.values_.at(because_key).origin, because + " needs " + key + " (" + describe_type(*find_setting(key)) + ")");
    };
    if (out.text("initial.function") == "uniform") require("initial.state", "initial.function", "uniform");
    if (out.text("initial.function") == "expression")
      for (const char* key : {"initial.density", "initial.velocity_x", "initial.velocity_y", "initial.pressure"})
        require(key, "initial.function", "expression");
    const std::vector<std::string> groups = out.boundary_groups();
    for (const auto& [key, value] : out.values_) {
      if (key.rfind("boundaries.", 0) != 0) continue;
      const std::string group = key.substr(11, key.find('.', 11) - 11);
      if (!out.values_.count("boundaries." + group + ".condition"))
        fail(key, value.origin, "boundary group '" + group + "' has no condition");
    }
    for (const std::string& group : groups) {
      const std::string condition_key = "boundaries." + group + ".condition";
      const std::string& condition = out.text(condition_key);
      if (condition == "inflow" || condition == "farfield")
        require("boundaries." + group + ".state", condition_key, condition);
      if (condition == "function") require("boundaries." + group + ".function", condition_key, condition);
    }
  }
};

CaseFile CaseFile::parse(const std::string& yaml, const std::string& name, const std::vector<std::string>& overrides) {
  CaseFile result;
  result.source_ = name;
  CaseFileBuilder builder{result};
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::ParserException& e) {
    throw std::invalid_argument(name + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                                ": not valid YAML: " + e.msg);
  }
  if (!root.IsMap()) throw std::invalid_argument(name + ": expected a map of sections (mesh, physics, initial, ...) at the top");
  builder.walk(root, "");
  for (const std::string& assignment : overrides) builder.override_with(assignment);
  builder.complete();
  return result;
}

CaseFile CaseFile::load(const std::string& path, const std::vector<std::string>& overrides) {
  if (const std::string why = not_an_input_file(path); why != "" && why != "no such file")
    throw std::invalid_argument(path + ": cannot read the case file: " + why);
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open the case file");
  std::stringstream text;
  text << in.rdbuf();
  return parse(text.str(), path, overrides);
}

const CaseFile::Value& CaseFile::at(const std::string& key) const {
  const auto it = values_.find(key);
  if (it == values_.end()) throw std::logic_error(source_ + ": " + key + " is not set");
  return it->second;
}

const std::string& CaseFile::text(const std::string& key) const { return at(key).text; }
double CaseFile::real(const std::string& key) const { return std::strtod(at(key).text.c_str(), nullptr); }
long long CaseFile::integer(const std::string& key) const { return static_cast<long long>(real(key)); }
bool CaseFile::boolean(const std::string& key) const { return at(key).text == "true"; }
std::vector<std::string> CaseFile::text_list(const std::string& key) const { return at(key).items; }
std::vector<double> CaseFile::real_list(const std::string& key) const {
  std::vector<double> out;
  for (const std::string& x : at(key).items) out.push_back(std::strtod(x.c_str(), nullptr));
  return out;
}
Origin CaseFile::origin(const std::string& key) const { return at(key).origin; }

std::vector<std::string> CaseFile::boundary_groups() const {
  std::set<std::string> groups;
  for (const auto& [key, value] : values_)
    if (key.rfind("boundaries.", 0) == 0) groups.insert(key.substr(11, key.find('.', 11) - 11));
  return {groups.begin(), groups.end()};
}

namespace {
/// text as a YAML scalar that reads back as the same text: quoted when it holds what YAML would read otherwise.
std::string yaml_scalar(const std::string& text) {
  const bool plain = !text.empty() && text.find(": ") == std::string::npos && text.find(" #") == std::string::npos &&
                     text.find_first_of("[]{}&*!|>'\"%@`,") == std::string::npos && text.front() != ' ' &&
                     text.back() != ' ' && text.front() != '-' && text.front() != '?' && text.front() != ':' &&
                     text.front() != '#';
  if (plain) return text;
  std::string quoted = "\"";
  for (const char ch : text) {
    if (ch == '"' || ch == '\\') quoted += '\\';
    quoted += ch;
  }
  return quoted + "\"";
}
}  // namespace

std::string CaseFile::resolved_yaml() const {
  std::string out = "# resolved configuration of " + source_ + "\n";
  std::string section;
  for (const auto& [key, value] : values_) {
    const std::size_t dot = key.rfind('.');
    const std::string parent = key.substr(0, dot), leaf = key.substr(dot + 1);
    if (parent != section) {
      // Nested sections (boundaries.GROUP) get one line per level.
      const std::size_t first = parent.find('.');
      if (first == std::string::npos || section.substr(0, first) != parent.substr(0, first)) out += parent.substr(0, first) + ":\n";
      if (first != std::string::npos) out += "  " + parent.substr(first + 1) + ":\n";
      section = parent;
    }
    const std::string indent(parent.find('.') == std::string::npos ? 2 : 4, ' ');
    const std::string shown = value.items.empty() ? yaml_scalar(value.text) : "[" + value.text + "]";
    const char* from = value.origin.kind == Origin::Kind::file       ? "case file"
                       : value.origin.kind == Origin::Kind::override ? "--set"
                                                                     : "default";
    out += indent + leaf + ": " + shown + "  # " + from + "\n";
  }
  return out;
}

}  // namespace kempe::cases
