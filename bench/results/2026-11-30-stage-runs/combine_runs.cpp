#include <chrono>
#include <cstdio>
#include <vector>
#include "solver/numerics/time_integrators.hpp"
using namespace kempe;
using namespace kempe::dg;
template <class F> struct OneByOne { F f; KEMPE_HD void operator()(index_t i) const { f(i); } };
int main(int argc, char** argv) {
  const index_t n = argc > 1 ? std::atoi(argv[1]) : 2160000;
  std::vector<double> x(n, 1.0), y(n, 2.0), z(n, 3.0), out(n), out2(n), clock(4, 0.0);
  clock[clock_step] = 1e-3;
  for (index_t i = 0; i < n; ++i) x[i] = 1.0 + 1e-3 * (i % 97), y[i] = 2.0 - 1e-4 * (i % 89), z[i] = 0.5 * (i % 13);
  auto lanes = StopGuard<double, CombineStage<double>>{CombineStage<double>{0.75, 0.25, 0.25, x.data(), y.data(), z.data(), clock.data(), out.data()}, clock.data()};
  auto single = OneByOne<decltype(lanes)>{StopGuard<double, CombineStage<double>>{CombineStage<double>{0.75, 0.25, 0.25, x.data(), y.data(), z.data(), clock.data(), out2.data()}, clock.data()}};
  for (int round = 0; round < 3; ++round) {
    double best[2] = {1e9, 1e9};
    for (int r = 0; r < 20; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      forall_cpu(n, single);
      auto t1 = std::chrono::steady_clock::now();
      forall_cpu(n, lanes);
      auto t2 = std::chrono::steady_clock::now();
      best[0] = std::min(best[0], std::chrono::duration<double>(t1 - t0).count());
      best[1] = std::min(best[1], std::chrono::duration<double>(t2 - t1).count());
    }
    bool same = true;
    for (index_t i = 0; i < n; ++i) same = same && out[i] == out2[i];
    std::printf("n %d: one at a time %.3f ms, runs %.3f ms, ratio %.2f, same bits %d\n", n, best[0] * 1e3, best[1] * 1e3, best[1] / best[0], int(same));
  }
}
