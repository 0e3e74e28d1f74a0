// The `kempe` command: subcommands for meshes (and, as they land, coloring and runs).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <iostream>
#include <new>

#include "base/text.hpp"
#include "kernels/backend.hpp"
#include "mesh/load.hpp"
#include "solver/cli/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Kempe: a GPU discontinuous Galerkin solver for the compressible Euler equations on unstructured "
               "meshes, with race-free face coloring.",
               "kempe"};
  app.set_version_flag("--version", [] {
    return std::string("kempe " KEMPE_VERSION " (CUDA backend: ") + (KEMPE_HAVE_CUDA ? "built" : "not built") +
           ", CUDA devices: " + std::to_string(kempe::cuda_device_count()) +
           ", Gmsh: " + (kempe::have_gmsh() ? "yes" : "no, .kmesh only") + ")";
  });
  app.require_subcommand(1);
  kempe::cli::add_mesh_commands(app);
  kempe::cli::add_color_command(app);
  kempe::cli::add_adapt_command(app);
#if KEMPE_HAVE_YAML
  kempe::cli::add_case_command(app);
  kempe::cli::add_run_command(app);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the message (or the help); a usage error exits 2, as for other Unix commands.
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const kempe::cli::ExitRequest& request) {
    std::fflush(stdout);
    return request.code;
  } catch (const std::bad_alloc&) {
    // Readers check every count against their file's size first; this is a mesh or run too large for memory.
    std::fflush(stdout);
    std::cerr << "kempe: error: out of memory: the mesh, order or output is too large for this machine\n";
    return 1;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::cerr << "kempe: error: " << kempe::shown_message(e.what()) << "\n";
    return 1;
  }
  return 0;
}
