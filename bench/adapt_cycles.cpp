// Adaptation cycles (adapt/forest.hpp): seconds per cycle (refine 10 % of the leaves, coarsen 10 % of the sibling
// groups, balance, counts, new nodes / edges / elements, incidence, faces regrouped by color, geometry, the coloring
// check a solver's cycle runs) on N x N grids of squares split into triangles, for growing N, on one backend; the
// full check of each adapted mesh (faces, coverage, 1-irregularity) runs after the cycle and is timed apart; next to it, coloring a mesh of the same
// size from scratch (the kempe algorithm, as start-up does), which is what Alg. 4's mapping saves; and the DG
// solver's mesh tables rebuilt from the adapted mesh (adapt/dg_tables.hpp), what a solver adds to each cycle.
//
// Each size first runs `warm` cycles, so that the mesh holds two levels with hanging faces and sibling groups
// to coarsen; then `cycles` timed cycles. With these fractions the mesh grows by about a third a cycle (the
// balance adds refinements, and only groups of four leaves can coarsen), so each row states the median leaves
// of the timed cycles' input meshes, and leaves per second counts those. A growing mesh outgrows its arrays
// at almost every cycle, and fresh memory costs time (the kernel maps and zeroes it); a solver whose mesh
// size settles, or that reserves its budget, does not pay that. So the same cycles run again on a forest that
// reserved storage for the largest mesh of the first run (TriangleForest::reserve): "reserved" columns.
// Beside them, one SSP-RK3 step of the DG solver at p = 2 (colored strategy, Rusanov flux, double precision) on a
// conforming mesh with as many triangles as the cycles' input: what a cycle is measured against.
// Compiled by nvcc in a CUDA build, so that the solver's step runs on either backend.
// With `settled`, adaptations on a mesh whose size has settled instead (settled_cycles), with the DG tables.
// Usage: kempe_bench_adapt [cpu|cuda] [N...]   (default: cpu 90 180 360 720, 16k to 1M start triangles)
//        kempe_bench_adapt [cpu|cuda] settled [N...]   (default 10 20 40 90: about 5k to 440k leaves)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "adapt/forest.hpp"
#include "coloring/coloring.hpp"
#include "coloring/reorder.hpp"
#include "mesh/generators.hpp"
#include "solver/numerics/dg_mesh.hpp"
#include "solver/numerics/euler_dg.hpp"
#include "bench_args.hpp"
#include "free_stream.hpp"

namespace {

using namespace kempe;
using Clock = std::chrono::steady_clock;

Mesh prepared(Mesh mesh) {
  FaceColoring coloring = color_faces(mesh, ColoringOptions{});
  apply_ordering(mesh, coloring, find_ordering("color_renumber").compute(mesh, coloring));
  return mesh;
}

using bench::FreeStream;

/// Seconds of one SSP-RK3 step at order P on `mesh` (the median of five, after one that touches every page).
template <int P = 2>
double rk3_step_seconds(const Mesh& mesh, Backend backend) {
  dg::EulerDG<P, double, euler::Flux::rusanov, FreeStream> solver(mesh, 1.4, FreeStream{}, dg::Strategy::colored, backend);
  solver.project([](double x, double y, double* u) {
    euler::conserved(1 + 0.1 * std::sin(x), 0.5, 0.2 + 0.05 * std::cos(y), 1.0, 1.4, u);
  });
  const double dt = solver.stable_dt(0.1);
  std::vector<double> seconds;
  for (int s = 0; s < 6; ++s) {
    const auto t0 = Clock::now();
    solver.step(dg::Integrator::ssprk3, dt);
    if (backend == Backend::cuda) device_synchronize("an SSP-RK3 step");
    if (s > 0) seconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Keeps in `peak` the largest counts of the meshes seen (what TriangleForest::reserve takes).
void note_peak(adapt::AdaptReport& peak, const adapt::AdaptReport& r) {
  peak.elements = std::max(peak.elements, r.elements), peak.nodes = std::max(peak.nodes, r.nodes);
  peak.edges = std::max(peak.edges, r.edges), peak.faces = std::max(peak.faces, r.faces);
}

double mean(const std::vector<double>& v) {
  double total = 0;
  for (const double x : v) total += x;
  return v.empty() ? 0.0 : total / double(v.size());
}

/// Adaptations on a settled mesh, as in a solver's run once its fine zone has formed: each cycle refines 10 % of
/// the leaves and coarsens 30 % of the sibling groups (at most level 3), which holds the leaf count steady after a
/// few dozen cycles. The forest reserves storage for the largest mesh of those, the DG tables (adapt/dg_tables.hpp)
/// are rebuilt after every cycle in their kept storage, so no timed cycle allocates. Printed: the mean over the
/// timed cycles of the forest's adaptation (with its phases), of the tables' rebuild, and their sum against one
/// SSP-RK3 step at p = 1 on a conforming mesh with as many triangles (what the double Mach reflection on an
/// adaptive mesh runs). The rebuilds alternate between every table and the set a solver with the vertex limiter
/// builds (no neighbour offsets: DGMesh::LimiterTables), so that both are timed side by side on the same meshes.
void settled_cycles(Backend backend, const std::vector<int>& sizes) {
  constexpr int settle = 40, cycles = 200, max_level = 3;
  constexpr double refine = 0.1, coarsen = 0.3;
  std::printf("| start triangles | leaves (mean) | adaptation (ms) | leaves/s | flags+balance | counts | build | faces | "
              "geometry | check | DG tables (ms) | DG tables, vertex limiter's (ms) | leaves/s, with tables | SSP-RK3 step, p = 1 (ms) | "
              "adaptation + tables / step |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const int n : sizes) {
    const Mesh mesh = prepared(grid_mesh(n, 1.0, 0.2, 1));
    adapt::TriangleForest forest(mesh, backend, max_level);
    dg::DGMesh<double> tables(backend);
    adapt::AdaptReport peak;
    std::uint64_t cycle = 0;
    for (; cycle < settle; ++cycle) {
      forest.flag_random(refine, coarsen, 1, cycle);
      note_peak(peak, forest.adapt(adapt::Check::colors));
      tables.rebuild(forest);
    }
    auto more = [](index_t k) { return k + k / 5; };
    forest.reserve(more(peak.elements), more(peak.nodes), more(peak.edges), more(peak.faces));
    tables.rebuild(forest);
    std::vector<double> leaves, total, balance, counts, build, faces, geometry, check, table, table_vertex;
    const dg::DGMesh<double>::LimiterTables vertex_limiter{false, true};
    for (int c = 0; c < cycles; ++c, ++cycle) {
      leaves.push_back(forest.num_elements());
      forest.flag_random(refine, coarsen, 1, cycle);
      const adapt::AdaptReport r = forest.adapt(adapt::Check::colors);
      if (!r.valid()) {
        std::fprintf(stderr, "cycle %llu is invalid (%lld failures)\n", (unsigned long long)cycle, (long long)r.failures);
        std::exit(1);
      }
      total.push_back(r.seconds), balance.push_back(r.seconds_flags + r.seconds_balance), counts.push_back(r.seconds_counts);
      build.push_back(r.seconds_build), faces.push_back(r.seconds_faces), geometry.push_back(r.seconds_geometry);
      check.push_back(r.seconds_check);
      const bool all = c % 2 == 0;
      const auto t0 = Clock::now();
      tables.rebuild(forest, 0, "the DG mesh tables", all ? dg::DGMesh<double>::LimiterTables{} : vertex_limiter);
      if (backend == Backend::cuda) device_synchronize("the DG tables");
      (all ? table : table_vertex).push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    const double k = mean(leaves), adapt_s = mean(total), table_s = mean(table);
    const double step = rk3_step_seconds<1>(prepared(grid_mesh(static_cast<int>(std::sqrt(k / 2.0)), 1.0, 0.2, 1)), backend);
    std::printf("| %d | %.0f | %.3f | %.3g | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3g | %.3f | %.3f |\n",
                mesh.num_elements(), k, 1e3 * adapt_s, k / adapt_s, 1e3 * mean(balance), 1e3 * mean(counts), 1e3 * mean(build),
                1e3 * mean(faces), 1e3 * mean(geometry), 1e3 * mean(check), 1e3 * table_s, 1e3 * mean(table_vertex),
                k / (adapt_s + table_s), 1e3 * step,
                (adapt_s + table_s) / step);
    std::fflush(stdout);
  }
}

}  // namespace

struct Run {
  std::vector<double> total, balance, counts, build, faces, geometry, check, full_check, rate, inputs, tables;
  adapt::AdaptReport last, peak;
};

/// warm + timed cycles on `forest` (the same seeded flags for the same start mesh), with the DG tables rebuilt
/// after each timed cycle when `tables` is given.
bool run_cycles(adapt::TriangleForest& forest, int warm, int cycles, Backend backend, dg::DGMesh<double>* tables, Run& run) {
  std::uint64_t cycle = 0;
  for (int c = 0; c < warm; ++c, ++cycle) {
    forest.flag_random(0.1, 0.1, 1, cycle);
    note_peak(run.peak, forest.adapt(adapt::Check::colors));
  }
  for (int c = 0; c < cycles; ++c, ++cycle) {
    const index_t leaves = forest.num_elements();
    forest.flag_random(0.1, 0.1, 1, cycle);
    run.last = forest.adapt(adapt::Check::colors);
    if (!run.last.valid()) {
      std::fprintf(stderr, "cycle %llu is invalid (%lld failures)\n", (unsigned long long)cycle, (long long)run.last.failures);
      return false;
    }
    note_peak(run.peak, run.last);
    const adapt::AdaptReport& last = run.last;
    run.total.push_back(last.seconds);
    run.balance.push_back(last.seconds_flags + last.seconds_balance);
    run.counts.push_back(last.seconds_counts);
    run.build.push_back(last.seconds_build);
    run.faces.push_back(last.seconds_faces);
    run.geometry.push_back(last.seconds_geometry);
    run.check.push_back(last.seconds_check);
    run.rate.push_back(leaves / last.seconds);
    run.inputs.push_back(leaves);
    const adapt::AdaptReport full = forest.check(adapt::Check::full);
    if (!full.valid()) {
      std::fprintf(stderr, "cycle %llu fails the full check (%lld failures)\n", (unsigned long long)cycle, (long long)full.failures);
      return false;
    }
    run.full_check.push_back(full.seconds_check);
    if (tables != nullptr) {
      const auto t_tables = Clock::now();
      tables->rebuild(forest);
      if (backend == Backend::cuda) device_synchronize("the DG tables");
      run.tables.push_back(std::chrono::duration<double>(Clock::now() - t_tables).count());
    }
  }
  return true;
}

constexpr const char* usage =
    "usage: kempe_bench_adapt [cpu|cuda] [N...]            cycles on N x N grids (default cpu 90 180 360 720)\n"
    "       kempe_bench_adapt [cpu|cuda] settled [N...]    settled meshes, with the DG tables (default 10 20 40 90)\n";

int bench_main(int argc, char** argv) {
  const std::string backend_name = argc > 1 ? argv[1] : "cpu";
  const bool settled = argc > 2 && std::string(argv[2]) == "settled";
  std::vector<int> sizes;
  for (int i = settled ? 3 : 2; i < argc; ++i) sizes.push_back(int(bench::integer_argument(argv[i], "N", 2, 4000)));
  if (sizes.empty()) sizes = settled ? std::vector<int>{10, 20, 40, 90} : std::vector<int>{90, 180, 360, 720};
  if (backend_name == "cuda" && cuda_device_count() == 0) {
    std::printf("no CUDA device: nothing to measure\n");
    return 0;
  }
  const Backend backend = backend_from_name(backend_name);
  if (settled) {
    settled_cycles(backend, sizes);
    return 0;
  }
  constexpr int warm = 2, cycles = 3, max_level = 3;
  std::printf("| start triangles | leaves (input) | hanging faces | cycle (ms) | leaves/s | DG tables (ms) | "
              "cycle, reserved (ms) | leaves/s, reserved | flags+balance | counts | build | faces | geometry | check | "
              "full check | recolor from scratch (ms) | SSP-RK3 step, p = 2 (ms) |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const int n : sizes) {
    const Mesh mesh = prepared(grid_mesh(n, 1.0, 0.2, 1));
    Run grown, reserved;
    {
      adapt::TriangleForest forest(mesh, backend, max_level);
      dg::DGMesh<double> dg_tables(backend);
      if (!run_cycles(forest, warm, cycles, backend, &dg_tables, grown)) return 1;
    }
    {
      adapt::TriangleForest forest(mesh, backend, max_level);
      forest.reserve(grown.peak.elements, grown.peak.nodes, grown.peak.edges, grown.peak.faces);
      if (!run_cycles(forest, warm, cycles, backend, nullptr, reserved)) return 1;
    }
    // Coloring a conforming mesh with as many triangles from scratch (what recoloring after each cycle costs).
    const double input = median(grown.inputs);
    const int m = static_cast<int>(std::sqrt(input / 2.0));
    Mesh same_size = grid_mesh(m, 1.0, 0.2, 1);
    const auto t0 = Clock::now();
    const FaceColoring recolored = color_faces(same_size, ColoringOptions{});
    const double recolor = std::chrono::duration<double>(Clock::now() - t0).count();
    const double step = rk3_step_seconds<2>(prepared(std::move(same_size)), backend);
    std::printf("| %d | %.0f | %d | %.2f | %.3g | %.2f | %.2f | %.3g | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | "
                "%.1f (%d colors) | %.2f |\n",
                mesh.num_elements(), input, grown.last.hanging_faces, 1e3 * median(grown.total), median(grown.rate),
                1e3 * median(grown.tables), 1e3 * median(reserved.total), median(reserved.rate), 1e3 * median(reserved.balance),
                1e3 * median(reserved.counts), 1e3 * median(reserved.build), 1e3 * median(reserved.faces),
                1e3 * median(reserved.geometry), 1e3 * median(reserved.check), 1e3 * median(reserved.full_check),
                1e3 * recolor, recolored.num_colors, 1e3 * step);
    std::fflush(stdout);
  }
  return 0;
}

int main(int argc, char** argv) {
  return kempe::bench::run_main("kempe_bench_adapt", usage, argc, argv, [&] { return bench_main(argc, argv); });
}
