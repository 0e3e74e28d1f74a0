#pragma once

#include <CLI/CLI.hpp>

namespace kempe::cli {

/// Ends the command with this exit status after it has said why (a run stopped by a signal: 128 + signal).
struct ExitRequest {
  int code;
};

/// `kempe mesh info|convert|generate`.
void add_mesh_commands(CLI::App& app);

/// `kempe color`.
void add_color_command(CLI::App& app);

/// `kempe adapt`.
void add_adapt_command(CLI::App& app);

/// `kempe case check|reference` (built with yaml-cpp only).
void add_case_command(CLI::App& app);
/// `kempe run CASE` (built with yaml-cpp only).
void add_run_command(CLI::App& app);

}  // namespace kempe::cli
