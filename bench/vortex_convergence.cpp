// The full isentropic-vortex convergence study (the test suite runs a smaller one): L2 density errors at t = 1
// and observed rates for p = 1..5 on bent triangle grids of [0, 10]^2, HLLC, SSP-RK3, CFL 0.5, exact boundary
// states. Prints the step-67 style tables and a Markdown summary; bench/vortex_convergence.sh runs it.
// Usage: kempe_bench_vortex [LIMITER]: with a slope limiter (vertex, moment) on every stage, p = 1..3 on
// smaller meshes: what the limiters cost on a smooth flow.
#include <cmath>
#include <cstdio>
#include <vector>

#include "../tests/unit/dg_cases.hpp"

namespace {

using namespace kempe;

struct Row {
  int p;
  std::vector<int> sizes;
  std::vector<double> errors;
};

template <int P>
Row study(const std::vector<int>& sizes, dg::Limiter limiter = dg::Limiter::none) {
  Row row{P, sizes, test::vortex_errors<P>(sizes, limiter)};
  test::print_convergence_table(P, row.sizes, row.errors);
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  const dg::Limiter limiter = argc > 1 ? dg::limiter_from_name(argv[1]) : dg::Limiter::none;
  const std::vector<Row> rows =
      limiter == dg::Limiter::none
          ? std::vector<Row>{study<1>({8, 16, 32, 64, 128}), study<2>({8, 16, 32, 64}), study<3>({8, 16, 32, 48}),
                             study<4>({8, 16, 24, 32}), study<5>({4, 8, 12, 16})}
          : std::vector<Row>{study<1>({8, 16, 32, 64}, limiter), study<2>({8, 16, 32, 64}, limiter),
                             study<3>({8, 16, 32}, limiter)};
  std::printf("\n| p | meshes (n x n squares, 2 triangles each) | L2 density error on the finest | rate on the finest pair |\n");
  std::printf("|---|---|---|---|\n");
  for (const Row& r : rows) {
    std::printf("| %d |", r.p);
    for (std::size_t i = 0; i < r.sizes.size(); ++i) std::printf("%s%d", i ? ", " : " ", r.sizes[i]);
    const std::size_t n = r.sizes.size();
    std::printf(" | %.3e | %.2f |\n", r.errors[n - 1],
                std::log(r.errors[n - 2] / r.errors[n - 1]) / std::log(double(r.sizes[n - 1]) / r.sizes[n - 2]));
  }
  return 0;
}
