// The full isentropic-vortex convergence study (the test suite runs a smaller one): L2 density errors at t = 1
// and observed rates for p = 1..5 on bent triangle grids of [0, 10]^2, HLLC, SSP-RK3, CFL 0.5, exact boundary
// states. Prints the step-67 style tables and a Markdown summary; bench/vortex_convergence.sh runs it.
// Usage: kempe_bench_vortex [LIMITER]: with a slope limiter (vertex, moment) on every stage, p = 1..3 on
// smaller meshes: what the limiters cost on a smooth flow.
//        kempe_bench_vortex adapted [P N LEVELS END]: the study on 1-irregular meshes (random refinement, then
// uniform; tests/unit/adapt_vortex.hpp), p = 1..4, or one order from an n x n start over LEVELS meshes.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../tests/unit/adapt_vortex.hpp"
#include "../tests/unit/dg_cases.hpp"
#include "bench_args.hpp"

namespace {

using namespace kempe;

struct Row {
  int p;
  std::vector<int> sizes;
  std::vector<double> errors;
};

template <int P>
Row study(const std::vector<int>& sizes, dg::Limiter limiter = dg::Limiter::none) {
  Row row{P, sizes, test::vortex_errors(P, sizes, limiter)};
  test::print_convergence_table(P, row.sizes, row.errors);
  return row;
}

struct AdaptedRow {
  int p, n;
  std::vector<test::AdaptedVortexError> rows;
};

AdaptedRow adapted_study(int p, int n, int levels, double end) {
  AdaptedRow row{p, n, test::adapted_vortex_errors(p, n, levels, end)};
  test::print_adapted_table(p, n, end, row.rows);
  std::fflush(stdout);
  return row;
}

int adapted_main(int argc, char** argv) {
  std::vector<AdaptedRow> rows;
  if (argc == 6) {
    const int p = int(bench::integer_argument(argv[2], "P", 1, 4)), n = int(bench::integer_argument(argv[3], "N", 1, 1000));
    const int levels = int(bench::integer_argument(argv[4], "LEVELS", 2, 8));
    rows.push_back(adapted_study(p, n, levels, bench::number_argument(argv[5], "END", 0.0, 100.0)));
  } else if (argc == 2) {
    constexpr double end = 1.0;
    rows = {adapted_study(1, 16, 3, end), adapted_study(2, 8, 3, end), adapted_study(3, 8, 4, end), adapted_study(4, 4, 4, end)};
  } else {
    throw bench::UsageError("adapted takes no arguments or four: P N LEVELS END");
  }
  std::printf("\n| p | start mesh | leaves on the finest | hanging faces there | L2 density error | rate on the finest pair |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const AdaptedRow& r : rows) {
    const std::size_t n = r.rows.size();
    std::printf("| %d | %d x %d | %d | %d | %.3e | %.2f |\n", r.p, r.n, r.n, int(r.rows[n - 1].elements), int(r.rows[n - 1].hanging_faces),
                r.rows[n - 1].error, test::adapted_rate(r.rows, n - 1));
  }
  return 0;
}

}  // namespace

constexpr const char* usage =
    "usage: kempe_bench_vortex [vertex|moment]         the study, with that slope limiter on every stage if named\n"
    "       kempe_bench_vortex adapted [P N LEVELS END]  on 1-irregular meshes: P 1..4, an N x N start, LEVELS meshes\n";

int study_main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "adapted") return adapted_main(argc, argv);
  if (argc > 2) throw bench::UsageError("expected at most one argument, a limiter");
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

int main(int argc, char** argv) {
  return kempe::bench::run_main("kempe_bench_vortex", usage, argc, argv, [&] { return study_main(argc, argv); });
}
