// Case files against the schema: a valid case with its defaults and overrides, and every kind of bad input with
// its message (file, line and column, the key, what was expected, "did you mean").
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "dg_cases.hpp"
#include "solver/case/case_file.hpp"
#include "solver/case/case_schema.hpp"
#include "solver/case/case_setup.hpp"

namespace kempe::cases {
namespace {

const std::string valid = R"(# the double Mach reflection, coarse
mesh:
  file: double_mach.geo
  size: 0.05
initial:
  function: double-mach
boundaries:
  shock:
    condition: function
    function: double-mach
  wall:
    condition: wall
  outflow:
    condition: outflow
solver:
  order: 1
  limiter: vertex
time:
  end: 0.2
)";

/// The message of the std::invalid_argument that f() throws ("" if none).
template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

/// The message of the std::invalid_argument that parsing `yaml` throws ("" if none).
std::string error_of(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  return message_of([&] { CaseFile::parse(yaml, "case.yaml", overrides); });
}

TEST(CaseFile, AValidCaseGetsItsDefaults) {
  const CaseFile c = CaseFile::parse(valid, "case.yaml");
  EXPECT_EQ(c.text("mesh.file"), "double_mach.geo");
  EXPECT_DOUBLE_EQ(c.real("mesh.size"), 0.05);
  EXPECT_EQ(c.integer("solver.order"), 1);
  EXPECT_EQ(c.text("solver.limiter"), "vertex");
  EXPECT_EQ(c.text("solver.flux"), "hllc");  // default
  EXPECT_TRUE(c.boolean("solver.troubled_cells_only"));
  EXPECT_DOUBLE_EQ(c.real("physics.gamma"), 1.4);
  EXPECT_EQ(c.boundary_groups(), (std::vector<std::string>{"outflow", "shock", "wall"}));
  EXPECT_EQ(c.origin("solver.order").kind, Origin::Kind::file);
  EXPECT_EQ(c.origin("solver.order").line, 16);
  EXPECT_EQ(c.origin("solver.flux").kind, Origin::Kind::default_value);
  const std::string echo = c.resolved_yaml();
  EXPECT_NE(echo.find("  order: 1  # case file\n"), std::string::npos) << echo;
  EXPECT_NE(echo.find("  flux: hllc  # default\n"), std::string::npos) << echo;
  EXPECT_NE(echo.find("boundaries:\n  outflow:\n    condition: outflow  # case file\n"), std::string::npos) << echo;
  // The echo reads back as the same configuration (every value now from the file).
  const CaseFile again = CaseFile::parse(echo, "echo.yaml");
  for (const Setting& s : settings()) {
    const std::string key(s.key);
    if (key.find('*') == std::string::npos && c.has(key)) {
      EXPECT_EQ(again.text(key), c.text(key)) << key;
    }
  }
  EXPECT_EQ(again.boundary_groups(), c.boundary_groups());
  EXPECT_EQ(again.text("boundaries.shock.function"), "double-mach");
}

TEST(CaseFile, OverridesReplaceValuesAndAreChecked) {
  const CaseFile c = CaseFile::parse(valid, "case.yaml", {"solver.order=3", "boundaries.wall.state=[1, 0, 0, 1]"});
  EXPECT_EQ(c.integer("solver.order"), 3);
  EXPECT_EQ(c.origin("solver.order").kind, Origin::Kind::override);
  EXPECT_EQ(c.real_list("boundaries.wall.state"), (std::vector<double>{1, 0, 0, 1}));
  EXPECT_EQ(error_of(valid, {"solver.order"}), "--set solver.order: expected key.path=value, e.g. --set solver.order=2");
  EXPECT_EQ(error_of(valid, {"solver.order=9"}), "--set solver.order: expected integer in [0, 5], got 9");
  EXPECT_EQ(error_of(valid, {"solver.ordre=2"}),
            "--set solver.ordre: unknown key; did you mean 'solver.order'? (kempe run --help-config lists every key)");
}

TEST(CaseFile, UnknownKeysNameTheirPlaceAndTheClosestKey) {
  EXPECT_EQ(error_of("solver:\n  ordr: 2\ntime:\n  end: 1\n"),
            "case.yaml:2:9: solver.ordr: unknown key; did you mean 'solver.order'? (kempe run --help-config lists every key)");
  EXPECT_EQ(error_of("solvr:\n  order: 2\n"),
            "case.yaml:2:10: solvr.order: unknown key; did you mean 'solver.order'? (kempe run --help-config lists every key)");
  EXPECT_EQ(error_of("boundaries:\n  inlet:\n    conditon: wall\n"),
            "case.yaml:3:15: boundaries.inlet.conditon: unknown key; did you mean 'boundaries.inlet.condition'? (kempe "
            "run --help-config lists every key)");
  EXPECT_EQ(error_of("colour: 3\n"), "case.yaml:1:9: colour: unknown key (kempe run --help-config lists every key)");
}

TEST(CaseFile, WrongTypesAndValuesSayWhatWasExpected) {
  const std::string head = "time:\n  end: 1\nsolver:\n";
  EXPECT_EQ(error_of(head + "  order: two\n"), "case.yaml:4:10: solver.order: expected integer in [0, 5], got 'two'");
  EXPECT_EQ(error_of(head + "  order: 1.5\n"), "case.yaml:4:10: solver.order: expected integer in [0, 5], got '1.5'");
  EXPECT_EQ(error_of(head + "  order: 7\n"), "case.yaml:4:10: solver.order: expected integer in [0, 5], got 7");
  EXPECT_EQ(error_of(head + "  flux: hlcc\n"),
            "case.yaml:4:9: solver.flux: unknown value 'hlcc'; did you mean 'hllc'? known: rusanov, hll, hllc, roe");
  EXPECT_EQ(error_of(head + "  troubled_cells_only: yes\n"),
            "case.yaml:4:24: solver.troubled_cells_only: expected true or false, got 'yes'");
  EXPECT_EQ(error_of(head + "  order: [1, 2]\n"), "case.yaml:4:10: solver.order: expected integer in [0, 5], got a list");
  EXPECT_EQ(error_of(head + "  order:\n"), "case.yaml:4:3: solver.order: no value given");
  EXPECT_EQ(error_of("time:\n  end: -1\n"), "case.yaml:2:8: time.end: expected real >= 0, got -1");
  EXPECT_EQ(error_of("time:\n  end: 1\n  end: 2\n"), "case.yaml:3:3: time.end: given twice");
  EXPECT_EQ(error_of("time:\n  end: 1\ninitial:\n  function: uniform\n  state: [1, 0, 0]\n"),
            "case.yaml:5:10: initial.state: expected list of 4 reals such as [1.4, 0, 0, 1]");
  EXPECT_EQ(error_of("time:\n  end: 1\nsolver: 3\n"),
            "case.yaml:3:9: solver: expected a section of keys such as solver.order, got a value");
}

TEST(CaseFile, MissingAndInconsistentKeysAreNamed) {
  EXPECT_EQ(error_of("solver:\n  order: 1\n"),
            "case.yaml: missing key mesh.file (text) or mesh.generator (rectangle): the mesh, a Gmsh .msh or .geo "
            "file or a .kmesh relative to the case file, or a built-in mesh");
  EXPECT_EQ(error_of("mesh:\n  file: m.msh\n  generator: rectangle\n"),
            "case.yaml:3:14: mesh.generator: give either mesh.file or mesh.generator, not both");
  const std::string base = "mesh:\n  file: m.msh\ntime:\n  end: 1\ninitial:\n  function: uniform\n";
  EXPECT_EQ(error_of(base), "case.yaml:6:13: initial.function: uniform needs initial.state (list of 4 reals)");
  const std::string uniform = base + "  state: [1.4, 0, 0, 1]\n";
  EXPECT_EQ(error_of(uniform + "boundaries:\n  inlet:\n    condition: inflow\n"),
            "case.yaml:10:16: boundaries.inlet.condition: inflow needs boundaries.inlet.state (list of 4 reals)");
  EXPECT_EQ(error_of(uniform + "boundaries:\n  inlet:\n    state: [1, 0, 0, 1]\n"),
            "case.yaml:10:12: boundaries.inlet.state: boundary group 'inlet' has no condition");
  EXPECT_EQ(error_of(uniform + "boundaries:\n  top:\n    condition: function\n"),
            "case.yaml:10:16: boundaries.top.condition: function needs boundaries.top.function (one of: double-mach, "
            "isentropic-vortex, sod, toro-2, toro-3, toro-4, toro-5)");
  EXPECT_EQ(error_of(uniform + "boundaries:\n  top:\n    condition: slip\n"),
            "case.yaml:10:16: boundaries.top.condition: unknown value 'slip'; known: wall, inflow, outflow, farfield, function, periodic");
  EXPECT_EQ(error_of(uniform), "");
}

TEST(CaseFile, TextValuesReadBackFromTheEcho) {
  const CaseFile c = CaseFile::parse("mesh:\n  file: \"runs/a: b #1.msh\"\ntime:\n  end: 1\ninitial:\n  function: double-mach\n", "case.yaml");
  EXPECT_EQ(c.text("mesh.file"), "runs/a: b #1.msh");
  EXPECT_EQ(CaseFile::parse(c.resolved_yaml(), "echo.yaml").text("mesh.file"), "runs/a: b #1.msh");
  EXPECT_EQ(error_of("? [a, b]\n: 1\n"), "case.yaml:1:3: (top level): a key must be a plain name");
}

TEST(CaseFile, BrokenYamlAndMissingFilesAreClearErrors) {
  EXPECT_EQ(error_of("solver:\n  order: [1, 2\n"), "case.yaml:3:1: not valid YAML: end of sequence flow not found");
  EXPECT_EQ(error_of("- a\n- b\n"), "case.yaml: expected a map of sections (mesh, physics, initial, ...) at the top");
  EXPECT_EQ(message_of([] { CaseFile::load("/nonexistent/case.yaml"); }), "/nonexistent/case.yaml: cannot open the case file");
  // A FIFO would block the reader forever, a directory is no file: both are refused before anything opens them.
  const std::string fifo = (std::filesystem::temp_directory_path() / "kempe_case_fifo.yaml").string();
  std::filesystem::remove(fifo);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(message_of([&] { CaseFile::load(fifo); }),
            fifo + ": cannot read the case file: not a regular file (a FIFO, socket or device)");
  std::filesystem::remove(fifo);
  const std::string folder = std::filesystem::temp_directory_path().string();
  EXPECT_EQ(message_of([&] { CaseFile::load(folder); }), folder + ": cannot read the case file: a directory, not a file");
}

/// Output times: every interval and the end, in order, and never more than max_outputs of them.
TEST(CaseSetup, OutputTimes) {
  EXPECT_EQ(output_times(CaseFile::parse(valid, "dmr.yaml", {"output.interval=0.05"})),
            (std::vector<double>{0.05, 0.1, 0.15000000000000002, 0.2}));
  EXPECT_EQ(output_times(CaseFile::parse(valid, "dmr.yaml", {"output.times=[0.1, 0.15]"})),
            (std::vector<double>{0.1, 0.15, 0.2}));
  EXPECT_EQ(message_of([] { output_times(CaseFile::parse(valid, "dmr.yaml", {"time.end=1e6", "output.interval=1e-5"})); }),
            "dmr.yaml: output.interval 1e-05 over time.end 1e+06 asks for 1e+11 outputs; at most 100000 are written "
            "(raise output.interval)");
  EXPECT_THAT(message_of([] { output_times(CaseFile::parse(valid, "dmr.yaml", {"output.times=[0.1, 0.05]"})); }),
              ::testing::HasSubstr("output.times: expected increasing times"));
}

/// The valid case with an inflow group, for the set-up tests.
const std::vector<std::string> inflow = {"boundaries.outflow.condition=inflow", "boundaries.outflow.state=[1.4, 0.5, 0, 1]"};

TEST(CaseSetup, TheCaseAndTheMeshNameTheSameBoundaryGroups) {
  const Mesh mesh = double_mach_mesh(6);  // groups shock, wall, outflow
  const CaseFile c = CaseFile::parse(valid, "cases/dmr.yaml", inflow);
  EXPECT_EQ(mesh_path(c), "cases/double_mach.geo");
  EXPECT_NO_THROW(check_boundaries(c, mesh));
  const BoundaryTable table = boundary_table(c, mesh);
  ASSERT_EQ(table.kinds.size(), 3u);
  EXPECT_EQ(table.kinds[0], bc::Kind::function);
  EXPECT_EQ(table.kinds[1], bc::Kind::wall);
  EXPECT_EQ(table.kinds[2], bc::Kind::inflow);
  EXPECT_EQ(table.functions[0], bc::StateFunction::double_mach);
  double u[euler::num_vars];
  euler::conserved(1.4, 0.5, 0.0, 1.0, 1.4, u);
  for (int v = 0; v < euler::num_vars; ++v) EXPECT_DOUBLE_EQ(table.states[2 * euler::num_vars + v], u[v]);
  // A group the mesh lacks, with the closest one; a mesh group the case leaves out.
  std::string text = valid;
  text.replace(text.find("  outflow:"), 10, "  outflw:");
  EXPECT_EQ(message_of([&] { check_boundaries(CaseFile::parse(text, "cases/dmr.yaml"), mesh); }),
            "cases/dmr.yaml:14:16: boundaries.outflw: the mesh double Mach grid has no boundary group 'outflw'; did you mean "
            "'outflow'? known: shock, wall, outflow");
  text = valid.substr(0, valid.find("  outflow:")) + "time:\n  end: 0.2\n";
  EXPECT_EQ(message_of([&] { check_boundaries(CaseFile::parse(text, "cases/dmr.yaml"), mesh); }),
            "cases/dmr.yaml: the boundary group 'outflow' of double Mach grid has no condition: add "
            "boundaries.outflow.condition (the mesh's groups: shock, wall, outflow)");
  EXPECT_EQ(message_of([&] {
              boundary_table(CaseFile::parse(valid, "cases/dmr.yaml", {inflow[0], "boundaries.outflow.state=[1.4, 0.5, 0, -1]"}), mesh);
            }),
            "--set boundaries.outflow.state: density and pressure must be positive");
}

TEST(CaseSetup, InitialStates) {
  const CaseFile named = CaseFile::parse(valid, "dmr.yaml");
  double u[euler::num_vars], expected[euler::num_vars];
  initial_state(named)(0.1, 0.5, u);
  bc::function_state(bc::StateFunction::double_mach, 0.1, 0.5, 0.0, 1.4, expected);
  for (int v = 0; v < euler::num_vars; ++v) EXPECT_DOUBLE_EQ(u[v], expected[v]);
  const CaseFile uniform = CaseFile::parse(valid, "dmr.yaml", {"initial.function=uniform", "initial.state=[1, 2, 3, 4]"});
  initial_state(uniform)(7, 8, u);
  euler::conserved(1.0, 2.0, 3.0, 4.0, 1.4, expected);
  for (int v = 0; v < euler::num_vars; ++v) EXPECT_DOUBLE_EQ(u[v], expected[v]);
  const CaseFile negative = CaseFile::parse(valid, "dmr.yaml", {"initial.function=uniform", "initial.state=[-1, 0, 0, 1]"});
  EXPECT_EQ(message_of([&] { initial_state(negative); }), "--set initial.state: density and pressure must be positive");
}

TEST(CaseSetup, InitialStatesAsExpressions) {
  const std::vector<std::string> expression = {"initial.function=expression", "initial.density=1 + 0.5 * sin(pi * x) * (y > 1 ? y : 1)",
                                               "initial.velocity_x=x^2", "initial.velocity_y=-y", "initial.pressure=2"};
  const CaseFile c = CaseFile::parse(valid, "dmr.yaml", expression);
  const auto state = initial_state(c);
  double u[euler::num_vars], expected[euler::num_vars];
  state(0.5, 2.0, u);
  euler::conserved(1 + 0.5 * std::sin(3.141592653589793 * 0.5) * 2.0, 0.25, -2.0, 2.0, 1.4, expected);
  for (int v = 0; v < euler::num_vars; ++v) EXPECT_NEAR(u[v], expected[v], 1e-14 * (1 + std::abs(expected[v])));
  // Errors: a missing expression, a syntax error, an unknown variable, a non-physical value.
  EXPECT_EQ(error_of(valid, {"initial.function=expression", "initial.density=1"}),
            "--set initial.function: expression needs initial.velocity_x (text)");
  std::vector<std::string> bad = expression;
  auto setup_error = [&](const std::string& density) {
    bad[1] = "initial.density=" + density;
    return message_of([&] { initial_state(CaseFile::parse(valid, "dmr.yaml", bad)); });
  };
  const std::string broken = setup_error("1 +"), unknown = setup_error("1 + z");
  EXPECT_NE(broken.find("--set initial.density: bad expression '1 +': "), std::string::npos) << broken;
  EXPECT_NE(unknown.find("'1 + z': Unexpected token \"z\""), std::string::npos) << unknown;
  bad[1] = "initial.density=x - 1";
  const auto negative = initial_state(CaseFile::parse(valid, "dmr.yaml", bad));
  EXPECT_THROW(negative(0.5, 0.0, u), std::runtime_error);
}

TEST(CaseSetup, TheAdaptSection) {
  using ::testing::HasSubstr;
  auto settings = [](const std::vector<std::string>& overrides) {
    return adapt_settings(CaseFile::parse(valid, "case.yaml", overrides));
  };
  auto error = [&](const std::vector<std::string>& overrides) { return message_of([&] { settings(overrides); }); };
  EXPECT_FALSE(settings({}).has_value()) << "no adapt.indicator: no adaptation";
  // The indicator's own thresholds unless the case sets them.
  const auto a = settings({"adapt.indicator=kxrcf", "adapt.max_level=3", "adapt.buffer=2"});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->criteria.indicator, adapt::Indicator::kxrcf);
  EXPECT_EQ(a->criteria.refine_above, 1.0);
  EXPECT_EQ(a->criteria.coarsen_below, 0.1);
  EXPECT_EQ(a->max_level, 3);
  EXPECT_EQ(a->criteria.buffer, 2);
  EXPECT_EQ(a->interval, 5);
  const auto box = settings({"adapt.indicator=box", "adapt.boxes=[0, 0, 1, 0.5, 2, 0, 3, 1]", "adapt.variable=pressure"});
  ASSERT_TRUE(box.has_value());
  ASSERT_EQ(box->criteria.boxes.size(), 2u);
  EXPECT_EQ(box->criteria.boxes[1].x0, 2.0);
  EXPECT_EQ(box->criteria.variable, adapt::IndicatorVariable::pressure);
  // Every bad value names its key.
  EXPECT_THAT(error({"adapt.indicator=lohner"}), HasSubstr("--set adapt.indicator: unknown value 'lohner'"));
  EXPECT_THAT(error({"adapt.max_level=3"}), HasSubstr("--set adapt.max_level: adaptive refinement needs adapt.indicator too"));
  EXPECT_THAT(error({"adapt.indicator=density_jump", "adapt.coarsen_below=0.5"}),
              HasSubstr("--set adapt.coarsen_below: adapt.coarsen_below (0.5) must be below adapt.refine_above (0.02)"));
  EXPECT_THAT(error({"adapt.indicator=modal_decay", "adapt.refine_above=-6"}),
              HasSubstr("--set adapt.refine_above: adapt.coarsen_below (-5) must be below adapt.refine_above (-6)"));
  EXPECT_THAT(error({"adapt.indicator=density_jump", "adapt.initial_levels=3"}),
              HasSubstr("--set adapt.initial_levels: 3 adaptations of the initial state cannot go below adapt.max_level 2"));
  EXPECT_THAT(error({"adapt.indicator=modal_decay", "solver.order=0"}), HasSubstr("solver.order 0 has only one"));
  EXPECT_THAT(error({"adapt.indicator=box"}), HasSubstr("the box indicator needs adapt.boxes"));
  EXPECT_THAT(error({"adapt.indicator=box", "adapt.boxes=[0, 0, 1]"}), HasSubstr("3 numbers; each box is 4"));
  EXPECT_THAT(error({"adapt.indicator=box", "adapt.boxes=[0, 0, 0, 1]"}), HasSubstr("box 1 is empty"));
  EXPECT_THAT(error({"adapt.indicator=kxrcf", "adapt.boxes=[0, 0, 1, 1]"}), HasSubstr("boxes are for adapt.indicator box"));
  EXPECT_THAT(error({"adapt.indicator=kxrcf", "adapt.max_level=0"}), HasSubstr("adapt.max_level"));
  EXPECT_THAT(error_of(valid + "adapt:\n  indicator: kxrcf\n  intreval: 3\n"),
              HasSubstr("adapt.intreval: unknown key; did you mean 'adapt.interval'?"));
}

TEST(CaseSchema, EveryKeyIsDocumentedAndTheReferenceIsCurrent) {
  for (const Setting& s : settings()) {
    EXPECT_FALSE(s.description.empty()) << s.key;
    EXPECT_EQ(find_setting(std::string(s.key)), &s) << s.key;
    if (s.type == ValueType::choice) {
      ASSERT_NE(s.choices, nullptr) << s.key;
      if (!s.default_value.empty()) {
        const auto names = s.choices();
        EXPECT_NE(std::find(names.begin(), names.end(), s.default_value), names.end()) << s.key;
      }
    }
  }
  EXPECT_EQ(find_setting("boundaries.top.condition")->key, "boundaries.*.condition");
  EXPECT_EQ(find_setting("boundaries.top.left.condition"), nullptr);
  // docs/case-reference.md is generated from the table (kempe case reference --markdown); it must match.
  std::ifstream in(std::string(KEMPE_SOURCE_DIR) + "/docs/case-reference.md");
  ASSERT_TRUE(in) << "docs/case-reference.md is missing";
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), reference_markdown()) << "regenerate docs/case-reference.md";
  EXPECT_NE(reference_text().find("solver.order\n    integer in [0, 5]; default 1\n"), std::string::npos);
}

}  // namespace
}  // namespace kempe::cases
