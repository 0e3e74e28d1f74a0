// The DG kernels (kernels/dg_K.hpp) on the GPU against the CPU, from the same source: eval_volume, the buffered
// surface pass and the atomic surface pass, on made-up elements and faces (random geometry and connectivity;
// the kernels do not need a consistent mesh to be compared). Orders 1, 3 and 5.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <random>
#include <vector>

#include "device_copy.hpp"
#include "kernels/backend.hpp"
#include "kernels/dg_K.hpp"
#include "kernels/triangle.hpp"
#include "skip.hpp"
#include "tests/unit/random_elements.hpp"

namespace {

using kempe::index_t;
using kempe::test::DeviceCopy;
using kempe::test::expect_close;
using kempe::test::to_host;

/// One state on every boundary face point (no pointers: it travels to the device by value).
struct FixedGhost {
  KEMPE_HD void operator()(std::int32_t, const double*, double, double, double x, double y, double t, double* out) const {
    kempe::euler::conserved(1.0 + 0.1 * x, 0.3, -0.2 + 0.1 * y, 1.0 + t, 1.4, out);
  }
};

template <int P>
void compare_kernels() {
  constexpr int nm = kempe::basis::num_modes(P), nv = kempe::euler::num_vars;
  const index_t n = 3000, nf = 4500;
  std::mt19937 rng(P);
  std::uniform_real_distribution<double> unit(-1, 1), positive(0.5, 1.5);
  std::uniform_int_distribution<index_t> element(0, n - 1);
  const kempe::dg::TriangleOperators op = kempe::dg::triangle_operators(P);
  const kempe::test::RandomElements elements = kempe::test::random_elements<P>(n, rng);
  const std::vector<double>& c = elements.c;
  const std::vector<double>& jacobian = elements.jacobian, &rx = elements.dr_dx, &ry = elements.dr_dy, &sx = elements.ds_dx,
                            &sy = elements.ds_dy;
  std::vector<index_t> left(nf), right(nf);
  std::vector<std::int8_t> left_local(nf), right_local(nf);
  std::vector<std::int32_t> boundary(nf, 0);
  std::vector<double> nx(nf), ny(nf), length(nf), x0(nf), y0(nf), x1(nf), y1(nf);
  for (index_t f = 0; f < nf; ++f) {
    left[f] = element(rng);
    right[f] = rng() % 5 == 0 ? kempe::no_element : element(rng);
    left_local[f] = static_cast<std::int8_t>(rng() % 3);
    right_local[f] = static_cast<std::int8_t>(rng() % 3);
    const double angle = 3.2 * unit(rng);
    nx[f] = std::cos(angle), ny[f] = std::sin(angle), length[f] = positive(rng);
    x0[f] = unit(rng), y0[f] = unit(rng), x1[f] = unit(rng), y1[f] = unit(rng);
  }
  auto tables = [](const kempe::dg::TriangleOperators& o, auto&& at) {
    return kempe::dg::Tables<double>{at(o.volume_weight), at(o.volume_basis), at(o.volume_grad_r), at(o.volume_grad_s),
                                     at(o.face_weight), at(o.face_abscissa), at(o.face_basis)};
  };
  using Integrals = kempe::dg::FaceIntegrals<P, double, kempe::euler::Flux::hllc, FixedGhost>;
  using Buffered = kempe::dg::EvalSurfaceBuffered<P, double, kempe::euler::Flux::hllc, FixedGhost>;
  using Atomic = kempe::dg::EvalSurface<P, double, kempe::euler::Flux::hllc, true, FixedGhost>;

  // CPU.
  const auto t = tables(op, [](const std::vector<double>& v) { return v.data(); });
  const kempe::dg::Geometry<double> g{jacobian.data(), rx.data(), ry.data(), sx.data(), sy.data()};
  const kempe::dg::Faces<double> fc{left.data(), right.data(), left_local.data(), right_local.data(), nx.data(), ny.data(),
                                    length.data(), x0.data(), y0.data(), x1.data(), y1.data(), boundary.data()};
  std::vector<double> rhs(c.size()), buffer(std::size_t(2) * nv * nm * nf);
  kempe::forall(kempe::Backend::cpu, n, kempe::dg::EvalVolume<P, double>{n, 1.4, c.data(), rhs.data(), t, g});
  const std::vector<double> volume = rhs;
  const std::vector<double> clock{0.25, 0.0, 0.0, 0.0};  // time 0.25, no step
  const Integrals integrals{n, 1.4, clock.data(), 0.0, c.data(), t, g, fc, FixedGhost{}};
  kempe::forall(kempe::Backend::cpu, nf, Buffered{nf, buffer.data(), integrals});
  kempe::forall(kempe::Backend::cpu, nf, Atomic{0, nf, rhs.data(), integrals});

  // GPU, on device copies of the same arrays.
  const DeviceCopy d_vw(op.volume_weight), d_vb(op.volume_basis), d_gr(op.volume_grad_r), d_gs(op.volume_grad_s),
      d_fw(op.face_weight), d_fa(op.face_abscissa), d_fb(op.face_basis);
  const kempe::dg::Tables<double> dt{d_vw.data, d_vb.data, d_gr.data, d_gs.data, d_fw.data, d_fa.data, d_fb.data};
  const DeviceCopy d_jac(jacobian), d_rx(rx), d_ry(ry), d_sx(sx), d_sy(sy);
  const kempe::dg::Geometry<double> dg{d_jac.data, d_rx.data, d_ry.data, d_sx.data, d_sy.data};
  const DeviceCopy d_left(left), d_right(right);
  const DeviceCopy d_left_local(left_local), d_right_local(right_local);
  const DeviceCopy d_boundary(boundary);
  const DeviceCopy d_nx(nx), d_ny(ny), d_length(length), d_x0(x0), d_y0(y0), d_x1(x1), d_y1(y1);
  const kempe::dg::Faces<double> dfc{d_left.data, d_right.data, d_left_local.data, d_right_local.data, d_nx.data,
                                     d_ny.data, d_length.data, d_x0.data, d_y0.data, d_x1.data, d_y1.data, d_boundary.data};
  const DeviceCopy d_c(c), d_rhs(std::vector<double>(c.size())), d_buffer(std::vector<double>(buffer.size()));
  kempe::forall(kempe::Backend::cuda, n, kempe::dg::EvalVolume<P, double>{n, 1.4, d_c.data, d_rhs.data, dt, dg});
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  expect_close(to_host(d_rhs), volume, "eval_volume");
  const DeviceCopy d_clock(clock);
  const Integrals d_integrals{n, 1.4, d_clock.data, 0.0, d_c.data, dt, dg, dfc, FixedGhost{}};
  kempe::forall(kempe::Backend::cuda, nf, Buffered{nf, d_buffer.data, d_integrals});
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  expect_close(to_host(d_buffer), buffer, "eval_surface, buffered");
  // Atomic adds land in a different order on the GPU: equal to round-off of the sums, not bitwise.
  kempe::forall(kempe::Backend::cuda, nf, Atomic{0, nf, d_rhs.data, d_integrals});
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  expect_close(to_host(d_rhs), rhs, "eval_volume + eval_surface, atomic", 1e-11);
}

TEST(GpuDgKernels, StableStepReductionMatchesCpu) {
  SKIP_WITHOUT_GPU();
  constexpr int P = 2, nm = kempe::basis::num_modes(P), nv = kempe::euler::num_vars;
  const index_t n = 100000;  // several blocks' worth per thread of the fixed reduction grid
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> positive(0.5, 1.5), unit(-1, 1);
  std::vector<double> c(std::size_t(nv) * nm * n), inradius(n);
  for (std::size_t i = 0; i < c.size(); ++i) {
    const int v = static_cast<int>(i / (std::size_t(nm) * n)), m = static_cast<int>((i / n) % nm);
    c[i] = m == 0 ? (v == 0 ? 1.5 : v == 3 ? 4.0 : 0.3) * positive(rng) : 0.01 * unit(rng);
  }
  for (double& r : inradius) r = 0.01 * positive(rng);
  const kempe::dg::StableStep<P, double> cpu_step{n, 1.4, c.data(), inradius.data()};
  const double cpu = kempe::reduce_min(kempe::Backend::cpu, n, cpu_step);
  DeviceCopy d_c(c);
  const DeviceCopy d_r(inradius);
  const double gpu = kempe::reduce_min(kempe::Backend::cuda, n, kempe::dg::StableStep<P, double>{n, 1.4, d_c.data, d_r.data});
  EXPECT_NEAR(gpu, cpu, 1e-14 * cpu);
  EXPECT_GT(cpu, 0);
  // A NaN in one element's top mode: both backends report a non-physical element (a negative minimum).
  c[(std::size_t(nv - 1) * nm + nm - 1) * n + 777] = std::nan("");
  const DeviceCopy d_bad(c);
  EXPECT_LT(kempe::reduce_min(kempe::Backend::cuda, n, kempe::dg::StableStep<P, double>{n, 1.4, d_bad.data, d_r.data}), 0);
  EXPECT_LT(kempe::reduce_min(kempe::Backend::cpu, n, kempe::dg::StableStep<P, double>{n, 1.4, c.data(), inradius.data()}), 0);
}

TEST(GpuDgKernels, MatchCpu) {
  SKIP_WITHOUT_GPU();
  compare_kernels<1>();
  compare_kernels<3>();
  compare_kernels<5>();
}

}  // namespace
