// `kempe case check CASE [--set KEY=VALUE ...]` and `kempe case reference [--markdown]`: check a case file against
// the schema and print the resolved configuration; print the reference of every key.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "mesh/load.hpp"
#include "solver/case/case_file.hpp"
#include "solver/case/case_schema.hpp"
#include "solver/case/case_setup.hpp"
#include "solver/cli/commands.hpp"

namespace kempe::cli {

void add_case_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("case", "check case files (YAML) and print the reference of their keys");
  cmd->require_subcommand(1);

  CLI::App* check = cmd->add_subcommand("check", "check a case file and print its resolved configuration");
  auto file = std::make_shared<std::string>();
  auto overrides = std::make_shared<std::vector<std::string>>();
  check->add_option("CASE", *file, "the case file (.yaml)")->required();
  check->add_option("--set", *overrides, "KEY=VALUE: replace a value of the file (repeatable), e.g. --set solver.order=2");
  auto no_mesh = std::make_shared<bool>(false);
  check->add_flag("--no-mesh", *no_mesh, "do not load the mesh (by default its boundary groups are checked against the case's)");
  check->callback([file, overrides, no_mesh] {
    const cases::CaseFile c = cases::CaseFile::load(*file, *overrides);
    (void)cases::initial_state(c);  // checks the initial state's names and expressions
    (void)cases::output_times(c);   // and the output times
    (void)cases::adapt_settings(c);  // and the adapt: section's keys together
    cases::check_solver_keys(c);     // and the solver: section's
    std::fputs(c.resolved_yaml().c_str(), stdout);
    if (*no_mesh) return;
    Mesh mesh = cases::load_case_mesh(c);
    if (mesh.color_begin.size() < 2) cases::apply_periodic(c, mesh);
    cases::check_boundaries(c, mesh);
    std::printf("# mesh %s: %d elements, %d faces; every boundary group has a condition\n", mesh.source.c_str(),
                int(mesh.num_elements()), int(mesh.num_faces()));
  });

  CLI::App* reference = cmd->add_subcommand("reference", "print every key: type, default, description");
  auto markdown = std::make_shared<bool>(false);
  reference->add_flag("--markdown", *markdown, "as the Markdown table of docs/case-reference.md");
  reference->callback([markdown] { std::fputs((*markdown ? cases::reference_markdown() : cases::reference_text()).c_str(), stdout); });
}

}  // namespace kempe::cli
