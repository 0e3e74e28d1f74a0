// The CUDA backend's benchmark. Prints Markdown tables for docs/benchmarks.md:
//  1. the device and its measured copy bandwidth (cudaMemcpy device to device, bytes read + written);
//  2. DOF updates per second per SSP-RK3 stage and per kernel, p = 1..5, double and float, on N x N grids of
//     squares split into triangles (colored, color_renumber), with the bandwidth model of bench/dg_throughput.cpp
//     (6 solution-sized arrays + 5 geometry values per element + 80 bytes per face per stage);
//  3. the coloring paper's Table 10 on this GPU: double Mach reflection, p = 1, 627,200 triangles numbered at
//     random (an unstructured generator's order), 1000 steps, greedy against kempe (3 colors), each as read and
//     with color renumbering and face reordering;
//  4. every race strategy at p = 1, 2 on the largest grid; the full grid on the double Mach case: four race
//     strategies x four orderings (fewer steps), with the step graph on and off;
//  5. Table 7: the device memory each strategy holds, from the allocations and from cudaMemGetInfo;
//  6. the elementwise rhs pass compiled for 1-6 resident blocks per multiprocessor (registers, spills, time);
//  7. (faces) the colored face passes of Table 10's case compiled likewise (1-6 and 8 blocks).
// `table10` runs Table 10's case alone (colored with color renumbering, then colored and elementwise with rcm
// and hilbert), to compare builds.
// Usage: kempe_bench_gpu [all|throughput|strategies|occupancy|dmr|faces|table10] [SIZES...]. SIZES: N of the throughput grids,
// default 224 708 1415 (100k, 1M and 4M triangles); strategies and occupancy use the last. Times are medians of
// CUDA-event timings after a warm-up.
// `kempe_bench_gpu profile ORDERING STRATEGY [STEPS]` runs Table 10's double Mach case (as `dmr`, kempe colors)
// for STEPS steps (default 10) with plain launches between cudaProfilerStart and cudaProfilerStop, for a
// profiler started with profiling off (bench/gpu_step_profile.sh: where each microsecond of a step goes).
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "../tests/unit/dg_cases.hpp"
#include "bench_args.hpp"
#include "free_stream.hpp"

namespace {

using namespace kempe;

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw_cuda_error(status, what, "the benchmark");
}

/// Median seconds of f() over `repeats` event-timed calls after one warm-up call.
template <class F>
double median_seconds(int repeats, F&& f) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  f();
  check(cudaDeviceSynchronize(), "warm-up");
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    check(cudaEventRecord(start), "cudaEventRecord");
    f();
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    times.push_back(ms * 1e-3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// Device-to-device copy bandwidth, bytes read plus written per second (2 GiB buffers, far beyond L2).
double copy_bandwidth() {
  const std::size_t bytes = std::size_t(2) << 30;
  void *a = device_allocate(bytes, "copy source"), *b = device_allocate(bytes, "copy target");
  check(cudaMemset(a, 1, bytes), "cudaMemset");
  const double seconds = median_seconds(10, [&] { check(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy"); });
  device_free(a);
  device_free(b);
  return 2.0 * double(bytes) / seconds;
}

using bench::FreeStream;

Mesh colored_mesh(Mesh mesh, const char* algorithm, const char* ordering) {
  FaceColoring coloring = color_faces(mesh, {algorithm, 1});
  apply_ordering(mesh, coloring, find_ordering(ordering).compute(mesh, coloring));
  return mesh;
}

/// The benchmarks' initial state: a smooth flow with every mode of every variable nonzero.
void smooth_flow(double x, double y, double* u) {
  euler::conserved(1 + 0.1 * std::sin(x), 0.5, 0.2 + 0.05 * std::cos(y), 1.0, 1.4, u);
}

template <int P, class Real>
void throughput_row(const Mesh& mesh, double bandwidth, dg::Strategy strategy = dg::Strategy::colored,
                    bool fused_stages = true) {
  dg::EulerDG<P, Real, euler::Flux::rusanov, FreeStream> solver(mesh, Real(1.4), FreeStream{}, strategy, Backend::cuda);
  solver.set_fused_stages(fused_stages);
  solver.project(smooth_flow);
  Buffer<Real> out(Backend::cuda, solver.solution_buffer().size(), "benchmark rhs");
  Buffer<Real> clock(Backend::cuda, std::vector<Real>{Real(0), Real(0), Real(0)}, "benchmark clock");
  const Real* c = solver.solution_buffer().data();
  const int repeats = 20;
  const double volume = median_seconds(repeats, [&] { solver.eval_volume(c, out.data()); });
  const double surface = median_seconds(repeats, [&] { solver.eval_surface(c, clock.data(), Real(0), out.data()); });
  const double rhs = median_seconds(repeats, [&] { solver.eval_rhs(c, clock.data(), Real(0), out.data()); });
  // A whole step (stable step reduction, three stages, clock) as the recorded graph, then per stage.
  const double step = median_seconds(repeats, [&] { solver.advance_steps(1, dg::Integrator::ssprk3, 0.1); });
  const double stage = step / 3;
  const double k = mesh.num_elements(), dofs = double(euler::num_vars) * basis::num_modes(P) * k;
  const double bytes = 6 * dofs * sizeof(Real) + 5.0 * sizeof(Real) * k + 80.0 * mesh.num_faces();
  std::printf("| %.2fM | %d | %s | %s | %.3g | %.3f | %.3f | %.3f | %.3f | %.0f | %.2f | %.2f |\n", k / 1e6, P,
              sizeof(Real) == 8 ? "double" : "float",
              (std::string(dg::strategies[int(strategy)].name) +
               (strategy == dg::Strategy::elementwise && !fused_stages ? " (update apart)" : ""))
                  .c_str(),
              dofs / stage,
              volume * 1e3, surface * 1e3, rhs * 1e3, stage * 1e3, bytes / stage / 1e9, bytes / stage / bandwidth,
              stage / (bytes / bandwidth));
}

template <class Real>
void throughput_orders(const Mesh& mesh, double bandwidth) {
  throughput_row<1, Real>(mesh, bandwidth);
  throughput_row<2, Real>(mesh, bandwidth);
  throughput_row<3, Real>(mesh, bandwidth);
  throughput_row<4, Real>(mesh, bandwidth);
  throughput_row<5, Real>(mesh, bandwidth);
}

void throughput_header(const char* title) {
  std::printf("\n### %s\n\n", title);
  std::printf("| triangles | p | precision | strategy | DOF/s per stage | eval_volume ms | eval_surface ms | rhs ms | stage ms | "
              "GB/s (model) | of copy bandwidth | stage / floor |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
}

/// p = 1 and 2 in double and float with every race strategy (rhs: eval_volume + eval_surface, or EvalElement).
void strategies(const std::vector<int>& sizes, double bandwidth) {
  throughput_header("Every race strategy, p = 1 and 2 (color_renumber, Rusanov, no limiter)");
  for (const int n : sizes) {
    const Mesh mesh = colored_mesh(build_mesh(square_grid(n, true)), "kempe", "color_renumber");
    for (const auto& s : dg::strategies) {
      throughput_row<1, double>(mesh, bandwidth, s.value);
      throughput_row<2, double>(mesh, bandwidth, s.value);
    }
    // elementwise with its stage update as a separate pass: what applying it in the rhs pass saves
    throughput_row<1, double>(mesh, bandwidth, dg::Strategy::elementwise, /*fused_stages=*/false);
    throughput_row<2, double>(mesh, bandwidth, dg::Strategy::elementwise, /*fused_stages=*/false);
    for (const auto& s : dg::strategies) {
      throughput_row<1, float>(mesh, bandwidth, s.value);
      throughput_row<2, float>(mesh, bandwidth, s.value);
    }
  }
}

/// A pass (the elementwise one, EvalElement; a colored face pass) compiled for a launch shape (threads per
/// block, blocks per multiprocessor: LaunchShape): ms (registers per thread, bytes of local memory per thread:
/// stack frame and spills).
template <int Threads, int Blocks, class Pass>
void occupancy_cell(const Pass& pass, index_t k) {
  using Shaped = WithLaunchShape<Pass, Threads, Blocks>;
  cudaFuncAttributes attributes{};
  check(cudaFuncGetAttributes(&attributes, detail::forall_kernel<Shaped>), "cudaFuncGetAttributes");
  const double seconds = median_seconds(20, [&] { forall(Backend::cuda, k, Shaped{pass}); });
  std::printf(" %.3f (%d, %zu) |", seconds * 1e3, attributes.numRegs, attributes.localSizeBytes);
}

template <int P, class Real>
void occupancy_row(const Mesh& mesh) {
  dg::EulerDG<P, Real, euler::Flux::rusanov, FreeStream> solver(mesh, Real(1.4), FreeStream{}, dg::Strategy::elementwise,
                                                                Backend::cuda);
  solver.project(smooth_flow);
  Buffer<Real> out(Backend::cuda, solver.solution_buffer().size(), "benchmark rhs");
  Buffer<Real> clock(Backend::cuda, std::vector<Real>{Real(0), Real(0), Real(0)}, "benchmark clock");
  const auto pass = solver.element_pass(solver.solution_buffer().data(), clock.data(), Real(0), out.data());
  const index_t k = mesh.num_elements();
  constexpr auto chosen = dg::element_pass_shape<P, Real>();
  std::printf("| %d | %s | %d x %d |", P, sizeof(Real) == 8 ? "double" : "float", chosen.block_size,
              chosen.min_blocks_per_sm);
  occupancy_cell<256, 1>(pass, k);
  occupancy_cell<256, 2>(pass, k);
  occupancy_cell<128, 1>(pass, k);
  occupancy_cell<128, 3>(pass, k);
  occupancy_cell<128, 4>(pass, k);
  occupancy_cell<128, 5>(pass, k);
  occupancy_cell<128, 6>(pass, k);
  std::printf("\n");
}

void occupancy(const std::vector<int>& sizes) {
  const Mesh mesh = colored_mesh(build_mesh(square_grid(sizes.back(), true)), "kempe", "color_renumber");
  std::printf("\n### The elementwise rhs pass (EvalElement, Rusanov) by launch shape (threads per block x blocks per SM "
              "it must fit), %.2fM triangles: ms (registers per thread, bytes of local memory: stack frame and spills)\n\n", mesh.num_elements() / 1e6);
  std::printf("| p | precision | element_pass_shape | 256 x 1 | 256 x 2 | 128 x 1 | 128 x 3 | 128 x 4 | 128 x 5 | 128 x 6 |\n"
              "|---|---|---|---|---|---|---|---|---|---|\n");
  occupancy_row<1, double>(mesh);
  occupancy_row<2, double>(mesh);
  occupancy_row<3, double>(mesh);
  occupancy_row<1, float>(mesh);
  occupancy_row<2, float>(mesh);
  occupancy_row<3, float>(mesh);
}

void throughput(const std::vector<int>& sizes, double bandwidth) {
  throughput_header("DOF updates per second per RK stage (colored, color_renumber, Rusanov, no limiter)");
  for (const int n : sizes) {
    const Mesh mesh = colored_mesh(build_mesh(square_grid(n, true)), "kempe", "color_renumber");
    throughput_orders<double>(mesh, bandwidth);
    throughput_orders<float>(mesh, bandwidth);
  }
}

using DmrSolver = dg::EulerDG<1, double, euler::Flux::hll, bc::GroupBoundary<double>>;

/// Seconds per step of a double Mach run from t = 0 (vertex and positivity limiters, CFL 0.5).
/// With `use` and `driver_bytes`: what the solver holds by its allocations, and by cudaMemGetInfo.
double dmr_seconds_per_step(const Mesh& mesh, dg::Strategy strategy, int steps, bool graphs,
                            DmrSolver::MemoryUse* use = nullptr, std::size_t* driver_bytes = nullptr) {
  const test::DoubleMachBoundary groups;
  const std::size_t free_before = device_memory().free_bytes;
  DmrSolver solver(mesh, test::gamma_air, groups.table(groups.unused), strategy, Backend::cuda);
  solver.set_graphs(graphs);
  solver.set_limiter(dg::Limiter::vertex);
  solver.set_positivity_limiter(1e-10);
  if (use) *use = solver.memory_use();
  if (driver_bytes) *driver_bytes = free_before - device_memory().free_bytes;
  solver.project([](double x, double y, double* u) { bc::function_state(bc::StateFunction::double_mach, x, y, 0.0, test::gamma_air, u); });
  solver.advance_steps(5, dg::Integrator::ssprk3, 0.5);  // warm-up, graph recorded
  device_synchronize("the warm-up steps");
  const auto t0 = std::chrono::steady_clock::now();
  solver.advance_steps(steps, dg::Integrator::ssprk3, 0.5);
  device_synchronize("the timed steps");
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / steps;
}

/// The colored strategy's face passes on Table 10's case by launch shape (occupancy_cell): each color's launch
/// with the kernel compiled for 128 threads and 1-6 or 8 blocks per multiprocessor, and 256 x 2; the registers it
/// may use shrink with the blocks it must fit (from 5 blocks it spills), which raises the occupancy the face
/// passes lack (16-18 % at 1 block).
void face_shapes(int ny) {
  const Mesh raw = double_mach_mesh(ny, 7);
  std::printf("\n### The colored face passes by launch shape (Table 10's case, p = 1, HLL, %d triangles): ms per launch "
              "(registers per thread, bytes of local memory: stack frame and spills)\n\n", int(raw.num_elements()));
  std::printf("| ordering | color | faces | 128 x 1 | 128 x 2 | 128 x 3 | 128 x 4 | 256 x 2 | 128 x 5 | 128 x 6 | 128 x 8 |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const char* ordering : {"color_renumber", "hilbert"}) {
    const Mesh mesh = colored_mesh(raw, "kempe", ordering);
    const test::DoubleMachBoundary groups;
    DmrSolver solver(mesh, test::gamma_air, groups.table(groups.unused), dg::Strategy::colored, Backend::cuda);
    solver.project([](double x, double y, double* u) { bc::function_state(bc::StateFunction::double_mach, x, y, 0.0, test::gamma_air, u); });
    Buffer<double> out(Backend::cuda, solver.solution_buffer().size(), "benchmark rhs");
    Buffer<double> clock(Backend::cuda, std::vector<double>(dg::clock_size, 0.0), "benchmark clock");
    const auto integrals = solver.face_integrals(solver.solution_buffer().data(), clock.data(), 0.0);
    const std::vector<index_t>& begin = solver.mesh().color_begin();
    for (std::size_t color = 0; color + 1 < begin.size(); ++color) {
      using Pass = dg::EvalSurface<1, double, euler::Flux::hll, false, bc::GroupBoundary<double>>;
      const Pass pass{begin[color], begin[color + 1], out.data(), integrals};
      const index_t n = begin[color + 1] - begin[color];
      std::printf("| %s | %zu | %d |", ordering, color + 1, int(n));
      occupancy_cell<128, 1>(pass, n);
      occupancy_cell<128, 2>(pass, n);
      occupancy_cell<128, 3>(pass, n);
      occupancy_cell<128, 4>(pass, n);
      occupancy_cell<256, 2>(pass, n);
      occupancy_cell<128, 5>(pass, n);
      occupancy_cell<128, 6>(pass, n);
      occupancy_cell<128, 8>(pass, n);
      std::printf("\n");
    }
  }
}

void double_mach(int ny) {
  // Triangles numbered at random, as an unstructured generator's numbering (greedy then needs 5 colors).
  const Mesh raw = double_mach_mesh(ny, 7);
  std::printf("\n### Table 10 on this GPU: double Mach reflection, p = 1, %d triangles numbered at random, 1000 SSP-RK3 "
              "steps (vertex + positivity limiters, colored)\n\n", int(raw.num_elements()));
  std::printf("| coloring | colors | ordering | seconds (1000 steps) | ms per step | DOF/s per stage |\n|---|---|---|---|---|---|\n");
  const double dofs = 4.0 * 3 * raw.num_elements();
  for (const char* algorithm : {"greedy", "kempe"})
    for (const char* ordering : {"as_read", "color_renumber"}) {
      const Mesh mesh = colored_mesh(raw, algorithm, ordering);
      const double s = dmr_seconds_per_step(mesh, dg::Strategy::colored, 1000, true);
      std::printf("| %s | %zu | %s | %.3f | %.3f | %.3g |\n", algorithm, mesh.color_begin.size() - 1, ordering, 1000 * s, s * 1e3,
                  dofs / (s / 3));
    }

  std::printf("\n### Race strategies x orderings (kempe coloring, 200 steps; ms per step, graph on / off)\n\n");
  std::printf("| strategy | as_read | color_renumber | rcm | hilbert |\n|---|---|---|---|---|\n");
  std::vector<Mesh> meshes;
  for (const char* ordering : {"as_read", "color_renumber", "rcm", "hilbert"}) meshes.push_back(colored_mesh(raw, "kempe", ordering));
  for (const auto& s : dg::strategies) {
    std::printf("| %s |", std::string(s.name).c_str());
    for (const Mesh& mesh : meshes)
      std::printf(" %.3f / %.3f |", 1e3 * dmr_seconds_per_step(mesh, s.value, 200, true),
                  1e3 * dmr_seconds_per_step(mesh, s.value, 200, false));
    std::printf("\n");
  }

  std::printf("\n### Table 7 on this GPU: device memory of the double Mach solver (p = 1, %d triangles)\n\n", int(raw.num_elements()));
  std::printf("| strategy | solver allocations MiB | driver (cudaMemGetInfo) MiB | strategy buffers MiB |\n|---|---|---|---|\n");
  for (const auto& s : dg::strategies) {
    DmrSolver::MemoryUse ours;
    std::size_t driver = 0;
    dmr_seconds_per_step(meshes[1], s.value, 1, true, &ours, &driver);
    std::printf("| %s | %.1f | %.1f | %.1f |\n", std::string(s.name).c_str(), ours.total() / 1048576.0, driver / 1048576.0,
                ours.strategy / 1048576.0);
  }
}

/// Table 10's run alone: kempe colors with color renumbering (the paper's), colored, 1000 steps; then the colored
/// and elementwise strategies with rcm and hilbert, 200 steps each, the step graph on: what compares builds of
/// different launch shapes in a few seconds each.
void table10(int ny) {
  const Mesh raw = double_mach_mesh(ny, 7);
  const Mesh renumbered = colored_mesh(raw, "kempe", "color_renumber");
  std::printf("\n### Table 10 alone (double Mach reflection, p = 1, %d triangles numbered at random, vertex + positivity "
              "limiters): ms per step with the step graph\n\n", int(raw.num_elements()));
  std::printf("| strategy | ordering | steps | ms per step |\n|---|---|---|---|\n");
  std::printf("| colored | color_renumber | 1000 | %.3f |\n", 1e3 * dmr_seconds_per_step(renumbered, dg::Strategy::colored, 1000, true));
  for (const char* ordering : {"rcm", "hilbert"}) {
    const Mesh mesh = colored_mesh(raw, "kempe", ordering);
    for (const dg::Strategy strategy : {dg::Strategy::colored, dg::Strategy::elementwise})
      std::printf("| %s | %s | 200 | %.3f |\n", std::string(dg::strategies[int(strategy)].name).c_str(), ordering,
                  1e3 * dmr_seconds_per_step(mesh, strategy, 200, true));
  }
}

/// Table 10's double Mach case with one ordering and strategy, STEPS steps with plain launches (one kernel per
/// launch, as a profiler lists them) between cudaProfilerStart and cudaProfilerStop, after the warm-up.
void profile_steps(const char* ordering, const char* strategy, int steps) {
  const Mesh mesh = colored_mesh(double_mach_mesh(280, 7), "kempe", ordering);
  const test::DoubleMachBoundary groups;
  DmrSolver solver(mesh, test::gamma_air, groups.table(groups.unused), dg::strategy_from_name(strategy), Backend::cuda);
  solver.set_graphs(false);
  solver.set_limiter(dg::Limiter::vertex);
  solver.set_positivity_limiter(1e-10);
  solver.project([](double x, double y, double* u) { bc::function_state(bc::StateFunction::double_mach, x, y, 0.0, test::gamma_air, u); });
  solver.advance_steps(5, dg::Integrator::ssprk3, 0.5);
  device_synchronize("the warm-up steps");
  check(cudaProfilerStart(), "cudaProfilerStart");
  const auto t0 = std::chrono::steady_clock::now();
  solver.advance_steps(steps, dg::Integrator::ssprk3, 0.5);
  device_synchronize("the profiled steps");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  check(cudaProfilerStop(), "cudaProfilerStop");
  std::printf("profile: %s, %s, %d triangles, %zu colors, %d steps, %.3f ms per step (under the profiler if one runs)\n",
              ordering, strategy, int(mesh.num_elements()), mesh.color_begin.size() - 1, steps, 1e3 * seconds / steps);
}

constexpr const char* usage =
    "usage: kempe_bench_gpu [all|throughput|strategies|occupancy|dmr|faces|table10] [SIZES...]\n"
    "       kempe_bench_gpu profile ORDERING STRATEGY [STEPS]\n"
    "  SIZES: N of the N x N throughput grids (default 224 708 1415); STEPS: the profiled steps (default 10)\n";

int bench_main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "all";
  if (what == "profile") {
    if (argc < 4 || argc > 5) throw bench::UsageError("profile takes ORDERING STRATEGY [STEPS]");
    const int steps = argc > 4 ? int(bench::integer_argument(argv[4], "STEPS", 1, 1000000)) : 10;
    if (cuda_device_count() == 0) {
      std::printf("kempe_bench_gpu: no CUDA device on this machine\n");
      return 0;
    }
    profile_steps(argv[2], argv[3], steps);
    return 0;
  }
  const std::vector<std::string> parts{"all", "throughput", "strategies", "occupancy", "dmr", "faces", "table10"};
  if (std::find(parts.begin(), parts.end(), what) == parts.end())
    throw bench::UsageError("unknown part '" + what + "'");
  std::vector<int> sizes;
  for (int i = 2; i < argc; ++i) sizes.push_back(int(bench::integer_argument(argv[i], "SIZES", 2, 4000)));
  if (sizes.empty()) sizes = {224, 708, 1415};
  if (cuda_device_count() == 0) {
    std::printf("kempe_bench_gpu: no CUDA device on this machine\n");
    return 0;
  }
  const DeviceMemory device = device_memory();
  const double bandwidth = copy_bandwidth();
  std::printf("device: %s, %.1f GiB; measured copy bandwidth %.0f GB/s (read + write)\n", device.name.c_str(),
              device.total_bytes / 1073741824.0, bandwidth / 1e9);
  if (what == "all" || what == "throughput") throughput(sizes, bandwidth);
  if (what == "all" || what == "strategies") strategies({sizes.back()}, bandwidth);
  if (what == "all" || what == "occupancy") occupancy(sizes);
  if (what == "all" || what == "dmr") double_mach(280);
  if (what == "all" || what == "faces") face_shapes(280);
  if (what == "table10") table10(280);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return kempe::bench::run_main("kempe_bench_gpu", usage, argc, argv, [&] { return bench_main(argc, argv); });
}
