// DG throughput on the CPU backend: DOF updates per second per Runge-Kutta stage for p = 1..5, for the four
// race strategies, per kernel and in total, on an N x N grid of squares split into triangles (default N = 700:
// 980k triangles, the size of the 1M-triangle target); then for every element ordering. A DOF is one
// modal coefficient of one variable. Threads come from OMP_NUM_THREADS. Usage: kempe_bench_dg [N] [STAGES]
// [all|strategies|orderings] [STRATEGY] (STRATEGY: that race strategy's rows only; the environment's
// KEMPE_BENCH_ORDERING orders the strategies' mesh otherwise than color_renumber, and KEMPE_BENCH_MESH=FILE
// (.kmesh, .msh or .geo, triangles) replaces the grid there, N then unused; KEMPE_BENCH_ORDERS=LIST, digits 1-5,
// runs those orders only, e.g. 12). Prints Markdown rows;
// bench/dg_throughput.sh runs it on 1 and 2 threads.
//
// Bandwidth model per stage (bytes that must move at least): the right-hand side reads the solution and
// writes the rhs, the update reads the stage start, the stage and the rhs and writes the solution: 6 arrays of
// 4 * modes * elements doubles, plus 5 geometry doubles per element and about 80 bytes per face. The measured
// copy bandwidth (a large std::copy) is the reference; the ratio says how far the stage is from memory bound.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "mesh/generators.hpp"
#include "mesh/load.hpp"
#include "coloring/coloring.hpp"
#include "coloring/reorder.hpp"
#include "solver/numerics/euler_dg.hpp"
#include "bench_args.hpp"
#include "free_stream.hpp"

namespace {

using namespace kempe;
using Clock = std::chrono::steady_clock;

using bench::FreeStream;

double copy_bandwidth() {
  const std::size_t n = std::size_t(1) << 26;  // 512 MiB of doubles, far beyond the caches
  std::vector<double> a(n, 1.0), b(n, 0.0);
  double best = 1e300;
  for (int r = 0; r < 3; ++r) {
    const auto t0 = Clock::now();
    forall(Backend::cpu, static_cast<index_t>(n), [&](index_t i) { b[i] = a[i]; });
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return 2.0 * n * sizeof(double) / best;  // read + write
}

/// Seconds per call of f, the best of `repeats` timed calls after one warm-up call.
template <class F>
double best_seconds(int repeats, F&& f) {
  f();
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

/// Whether KEMPE_BENCH_ORDERS (digits, e.g. "12") is unset or names order P.
bool order_chosen(int P) {
  const char* orders = std::getenv("KEMPE_BENCH_ORDERS");
  return orders == nullptr || *orders == '\0' || std::string(orders).find(char('0' + P)) != std::string::npos;
}

/// One row: DOF updates per second per SSP-RK3 stage, the stage's time split into eval_volume, eval_surface
/// (by the strategy) and the rest (the stage update; limiters are off), and the bandwidth model.
template <int P>
void run(const Mesh& mesh, const char* ordering, dg::Strategy strategy, int stages, double bandwidth, int threads,
         bool fused_stages = true) {
  if (!order_chosen(P)) return;
  dg::EulerDG<P, double, euler::Flux::rusanov, FreeStream> solver(mesh, 1.4, FreeStream{}, strategy);
  solver.set_fused_stages(fused_stages);
  solver.project([](double x, double y, double* u) {
    euler::conserved(1 + 0.1 * std::sin(x), 0.5, 0.2 + 0.05 * std::cos(y), 1.0, 1.4, u);
  });
  const double dt = solver.stable_dt(0.1);
  solver.step(dg::Integrator::ssprk3, dt);  // warm up: pages touched, caches filled
  const auto t0 = Clock::now();
  const int steps = std::max(1, stages / 3);
  for (int s = 0; s < steps; ++s) solver.step(dg::Integrator::ssprk3, dt);
  const double per_stage = std::chrono::duration<double>(Clock::now() - t0).count() / (3.0 * steps);
  std::vector<double> out(solver.solution().size());
  const int repeats = std::max(1, stages / 3);
  const double volume = best_seconds(repeats, [&] { solver.eval_volume(solver.solution(), out); });
  const double surface = best_seconds(repeats, [&] { solver.eval_surface(solver.solution(), 0.0, out); });
  const double dofs = double(euler::num_vars) * basis::num_modes(P) * mesh.num_elements();
  const double bytes = 6 * dofs * 8 + 5.0 * 8 * mesh.num_elements() + 80.0 * mesh.num_faces();
  std::printf("| %d | %s | %s | %d | %d | %.3e | %.2f | %.2f | %.2f | %.2f | %.1f | %.0f%% |\n", P,
              (std::string(dg::strategies[int(strategy)].name) +
               (strategy == dg::Strategy::elementwise && !fused_stages ? " (update apart)" : ""))
                  .c_str(),
              ordering, threads, mesh.num_elements(),
              dofs / per_stage, per_stage * 1e3, volume * 1e3, surface * 1e3,
              std::max(0.0, per_stage - volume - surface) * 1e3, bytes / per_stage / 1e9,
              100 * bytes / per_stage / bandwidth);
}

void header() {
  std::printf("| p | strategy | ordering | threads | triangles | DOF updates/s per stage | ms per stage | eval_volume ms | "
              "eval_surface ms | update ms | modeled GB/s | of copy bandwidth |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
}

constexpr const char* usage =
    "usage: kempe_bench_dg [N] [STAGES] [all|strategies|orderings] [STRATEGY]\n"
    "  N: an N x N grid of squares split into triangles (default 700); STAGES: timed stages per row (default 9);\n"
    "  STRATEGY: that race strategy's rows only. Environment: OMP_NUM_THREADS, KEMPE_BENCH_ORDERING,\n"
    "  KEMPE_BENCH_MESH, KEMPE_BENCH_ORDERS (the header of bench/dg_throughput.cpp says what each does).\n";

int bench_main(int argc, char** argv) {
  if (argc > 5) throw bench::UsageError("at most four arguments");
  const int n = argc > 1 ? int(bench::integer_argument(argv[1], "N", 1, 4000)) : 700;
  const int stages = argc > 2 ? int(bench::integer_argument(argv[2], "STAGES", 1, 100000)) : 9;
  const std::string part = argc > 3 ? argv[3] : "all";
  if (part != "all" && part != "strategies" && part != "orderings")
    throw bench::UsageError("the third argument must be all, strategies or orderings, not '" + part + "'");
  const std::string only = argc > 4 ? argv[4] : "";
  if (!only.empty()) dg::strategy_from_name(only);  // an unknown name: the error lists the strategies
  const int threads = cpu_threads();
  const double bandwidth = copy_bandwidth();
  std::printf("copy bandwidth: %.1f GB/s (%d threads)\n\n", bandwidth / 1e9, threads);
  const Mesh input = build_mesh(square_grid(n, true));
  FaceColoring input_coloring = color_faces(input, {"kempe", 1});
  auto ordered = [](const char* name, const Mesh& from, FaceColoring coloring) {
    Mesh mesh = from;
    apply_ordering(mesh, coloring, find_ordering(name).compute(mesh, coloring));
    return mesh;
  };
  if (part == "all" || part == "strategies") {
    // Every strategy and order on the solver's default numbering (KEMPE_BENCH_ORDERING: another ordering of the
    // grid's numbering instead).
    const char* chosen = std::getenv("KEMPE_BENCH_ORDERING");
    const char* ordering = chosen != nullptr && *chosen != '\0' ? chosen : "color_renumber";
    const char* mesh_file = std::getenv("KEMPE_BENCH_MESH");
    const bool from_file = mesh_file != nullptr && *mesh_file != '\0';
    // A mesh from a file is colored and ordered here, whatever the file holds.
    const Mesh loaded = from_file ? load_mesh(mesh_file) : Mesh{};
    const Mesh mesh = from_file ? ordered(ordering, loaded, color_faces(loaded, {"kempe", 1}))
                                : ordered(ordering, input, input_coloring);
    if (from_file) std::printf("mesh: %s\n\n", mesh_file);
    header();
    for (const auto& named : dg::strategies) {
      if (!only.empty() && only != named.name) continue;
      run<1>(mesh, ordering, named.value, stages, bandwidth, threads);
      run<2>(mesh, ordering, named.value, stages, bandwidth, threads);
      run<3>(mesh, ordering, named.value, stages, bandwidth, threads);
      run<4>(mesh, ordering, named.value, stages, bandwidth, threads);
      run<5>(mesh, ordering, named.value, stages, bandwidth, threads);
    }
    // elementwise with its stage update as a separate pass: what applying it in the rhs pass saves
    if (only.empty() || only == "elementwise") {
      run<1>(mesh, ordering, dg::Strategy::elementwise, stages, bandwidth, threads, /*fused_stages=*/false);
      run<2>(mesh, ordering, dg::Strategy::elementwise, stages, bandwidth, threads, /*fused_stages=*/false);
    }
    std::printf("\n");
  }
  if (part == "all" || part == "orderings") {
    // Every ordering, from an input numbering shuffled at random (a mesh generator's numbering is rarely
    // this bad, the grid's own far better; the shuffle shows what each ordering recovers).
    Mesh shuffled = input;
    {
      Permutation shuffle;
      shuffle.element_new.resize(input.num_elements());
      for (index_t e = 0; e < input.num_elements(); ++e) shuffle.element_new[e] = e;
      std::mt19937 rng(11);
      std::shuffle(shuffle.element_new.begin(), shuffle.element_new.end(), rng);
      // Faces grouped by color, as every ordering leaves them.
      Mesh mesh = input;
      FaceColoring coloring = input_coloring;
      const Permutation as_read = find_ordering("as_read").compute(mesh, coloring);
      shuffle.face_new = as_read.face_new;
      apply_ordering(shuffled, input_coloring, shuffle);
    }
    header();
    for (const char* name : {"as_read", "color_renumber", "rcm", "hilbert"}) {
      const Mesh mesh = ordered(name, shuffled, input_coloring);
      for (const dg::Strategy strategy : {dg::Strategy::colored, dg::Strategy::atomic}) {
        run<1>(mesh, name, strategy, stages, bandwidth, threads);
        run<3>(mesh, name, strategy, stages, bandwidth, threads);
      }
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return kempe::bench::run_main("kempe_bench_dg", usage, argc, argv, [&] { return bench_main(argc, argv); });
}
