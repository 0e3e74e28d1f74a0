// How far the CPU's bounded-blend Sod run at p = 1 moves when every step's result is perturbed by a few roundings.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>
#include <limits>
#include <cstdlib>
#include "tests/unit/dg_cases.hpp"
#include "solver/numerics/simulation.hpp"
using namespace kempe;
Mesh sod_box() {
  const double distortion = std::getenv("DISTORT") ? std::atof(std::getenv("DISTORT")) : 0.0;
  Mesh mesh = grid_mesh(24, 1.0, distortion, 1);
  mesh.boundary_names = {"bottom", "top", "left", "right"};
  for (index_t f = 0; f < mesh.num_faces(); ++f)
    if (mesh.face_right[f] == no_element)
      mesh.face_boundary[f] = mesh.normal_y[f] < -0.5 ? 0 : mesh.normal_y[f] > 0.5 ? 1 : mesh.normal_x[f] < 0 ? 2 : 3;
  return test::prepared(std::move(mesh));
}
const sim::BoundaryGroups sod_walls{{bc::Kind::wall, bc::Kind::wall, bc::Kind::outflow, bc::Kind::outflow},
                                    std::vector<double>(4 * euler::num_vars, 1.0), {}};
void sod_state(double x, double, double* u) { euler::conserved(x < 0.5 ? 1.0 : 0.125, 0.0, 0.0, x < 0.5 ? 1.0 : 0.1, test::gamma_air, u); }
int main(int argc, char** argv) {
  const int order = argc > 1 ? std::atoi(argv[1]) : 1;
  const int seeds = argc > 2 ? std::atoi(argv[2]) : 32;
  const double amp = argc > 3 ? std::atof(argv[3]) : 4;
  const int start_only = argc > 4 ? std::atoi(argv[4]) : 0;
  const Mesh mesh = sod_box();
  sim::SolverOptions o;
  o.order = order; o.precision = sim::Precision::float64; o.flux = euler::Flux::hll; o.strategy = dg::Strategy::colored;
  o.shock_capturing = dg::ShockCapturing::subcell; o.blending_max = 0.1; o.subcell_order = 1; o.positivity = 1e-12;
  o.subcell_bounds = true; o.backend = Backend::cpu;
  const double end = 0.05;
  auto cpu = sim::make_simulation(mesh, o, sod_walls);
  cpu->project(sod_state);
  cpu->advance(end, dg::Integrator::ssprk3, 0.5, 0, std::numeric_limits<int>::max());
  const std::vector<double> ref = cpu->solution();
  if (const char* path = std::getenv("REF_OUT")) { FILE* f = std::fopen(path, "wb"); std::fwrite(ref.data(), 8, ref.size(), f); std::fclose(f); }
  if (const char* path = std::getenv("REF_IN")) {
    std::vector<double> other(ref.size()); FILE* f = std::fopen(path, "rb"); if (std::fread(other.data(), 8, other.size(), f) != other.size()) return 1; std::fclose(f);
    double d2 = 0, r2 = 0, big = 0;
    for (size_t i = 0; i < ref.size(); ++i) { double e = other[i] - ref[i]; d2 += e * e; r2 += ref[i] * ref[i]; big = std::max(big, std::abs(e) / (1 + std::abs(ref[i]))); }
    std::printf("against %s: normwise %.2e largest %.2e\n", path, std::sqrt(d2 / r2), big);
  }
  const double ulp = std::numeric_limits<double>::epsilon();
  for (int seed = 1; seed <= seeds; ++seed) {
    auto p = sim::make_simulation(mesh, o, sod_walls);
    p->project(sod_state);
    std::mt19937 rng{unsigned(seed)};
    std::uniform_real_distribution<double> r(-amp * ulp, amp * ulp);
    auto perturb = [&] { std::vector<double> c = p->solution(); for (double& v : c) v *= 1 + r(rng); p->restore(c, p->time()); };
    perturb();
    if (start_only) p->advance(end, dg::Integrator::ssprk3, 0.5, 0, std::numeric_limits<int>::max());
    else while (p->time() < p->solver_time(end)) { p->advance(end, dg::Integrator::ssprk3, 0.5, 0, 1); perturb(); }
    const std::vector<double> c = p->solution();
    double d2 = 0, r2 = 0, big = 0;
    for (size_t i = 0; i < c.size(); ++i) { double e = c[i] - ref[i]; d2 += e * e; r2 += ref[i] * ref[i]; big = std::max(big, std::abs(e) / (1 + std::abs(ref[i]))); }
    std::printf("seed %2d: normwise %.2e largest %.2e\n", seed, std::sqrt(d2 / r2), big);
  }
}
