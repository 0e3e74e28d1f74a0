// The DG kernels for the Euler equations on triangles, as functors that forall runs on the CPU or the GPU:
// eval_volume (one work item per element) and eval_surface (one work item per face of a color range), after
// the DG-GPU solver of the coloring paper (its section 1.3). Order P, precision Real and the flux are template
// parameters, so every loop below has compile-time bounds.
//
// Layout: the solution and the right-hand side are c[var][mode][element], element index fastest (work item k
// touches address k: coalesced on the GPU, unit stride on the CPU). The right-hand side is the time derivative
// of the modal coefficients: with an orthonormal basis and affine elements the mass matrix is |J| times the
// identity, so dc_m/dt = sum_q w_q F(u_q) . grad phi_m(q) - (L / 2 |J|) sum_q w_q F*(q) phi_m(q) over faces.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/registry.hpp"
#include "base/types.hpp"
#include "kernels/backend.hpp"
#include "kernels/basis.hpp"
#include "kernels/euler.hpp"
#include "kernels/stage_K.hpp"

namespace kempe::dg {

/// The constant mode's value, 1 / sqrt(2) (orthonormal on the reference triangle of area 2): the cell average
/// of a variable is its mode-0 coefficient times this.
inline constexpr double mode0_value = 0.70710678118654752440;

/// Points of the Witherden-Vincent rule of degree 2p + 1 (quadrature.hpp) and of the face rule (p + 1 Gauss).
KEMPE_HD constexpr int volume_points(int p) {
  constexpr int points[] = {1, 6, 7, 15, 19, 28};
  return points[p];
}
KEMPE_HD constexpr int face_points(int p) { return p + 1; }

/// The reference tables of TriangleOperators (triangle.hpp), as pointers the kernels read.
template <class Real>
struct Tables {
  const Real* volume_weight;  ///< [volume points]
  const Real* volume_basis;   ///< [volume points][modes]
  const Real* volume_grad_r;  ///< [volume points][modes]
  const Real* volume_grad_s;  ///< [volume points][modes]
  const Real* face_weight;    ///< [face points]
  const Real* face_abscissa;  ///< [face points] Gauss points on [-1, 1]
  const Real* face_basis;     ///< [3][face points][modes]
  /// [3][2][face points][modes]: the same points on the first and second half of each local face (the coarse
  /// side of a hanging face; TriangleOperators::face_half_basis)
  const Real* face_half_basis;
};

/// The basis at the face points of local face `local`, or of its half `half` (whole_edge, first_half,
/// second_half of base/types.hpp), from the tables face_basis and face_half_basis of Tables: [face points][modes].
template <int P, class Real>
KEMPE_HD const Real* side_basis(const Real* face_basis, const Real* face_half_basis, int local, int half) {
  constexpr int nq = P + 1, nm = basis::num_modes(P);
  return half == whole_edge ? face_basis + local * nq * nm : face_half_basis + (2 * local + half - 1) * nq * nm;
}

/// Whether the lanes' elements are consecutive, element[l] = element[0] + l (CPU lanes of faces). The color
/// renumbering (Alg. 5 of the coloring paper) numbers a color's left elements, and mostly its right ones,
/// consecutively, so that their planes are read and written with one vector load or store each instead of
/// one load and insert per lane (lanes_from, EvalSurface::store_lanes).
template <int W>
inline bool consecutive(const index_t (&element)[W]) {
  bool run = true;
  for (int l = 1; l < W; ++l) run &= element[l] == element[0] + l;
  return run;
}

/// to[v][m][l] = from[(v * nm + m) * k + element[l]] for the lanes' elements (CPU lanes; consecutive: whether
/// element[] is a run, read then plane by plane with vector loads).
template <int W, int NV, int NM, class Real>
inline void lanes_from(const Real* from, index_t k, const index_t (&element)[W], bool run, Real (&to)[NV][NM][W]) {
  if (run) {
    for (int v = 0; v < NV; ++v)
      for (int m = 0; m < NM; ++m) {
        const Real* plane = from + std::size_t(v * NM + m) * k + element[0];
        KEMPE_OMP_SIMD
        for (int l = 0; l < W; ++l) to[v][m][l] = plane[l];
      }
  } else {
    for (int v = 0; v < NV; ++v)
      for (int m = 0; m < NM; ++m)
        for (int l = 0; l < W; ++l) to[v][m][l] = from[std::size_t(v * NM + m) * k + element[l]];
  }
}

/// Element e's coefficients, ce [vars][modes], from c [vars][modes][elements] (k elements).
template <int P, class Real>
KEMPE_HD void load_modes(const Real* c, index_t k, index_t e, Real (&ce)[euler::num_vars][basis::num_modes(P)]) {
  for (int v = 0; v < euler::num_vars; ++v)
    for (int m = 0; m < basis::num_modes(P); ++m) ce[v][m] = c[(v * basis::num_modes(P) + m) * k + e];
}

/// The state at one point, u[v] = sum over modes of ce[v][m] basis_row[m] (basis_row: that point's [modes]).
template <int P, class Real>
KEMPE_HD void point_state(const Real (&ce)[euler::num_vars][basis::num_modes(P)], const Real* basis_row,
                          Real (&u)[euler::num_vars]) {
  for (int v = 0; v < euler::num_vars; ++v) {
    Real sum = Real(0);
    for (int m = 0; m < basis::num_modes(P); ++m) sum += ce[v][m] * basis_row[m];
    u[v] = sum;
  }
}

/// Affine geometry per element, [elements] each.
template <class Real>
struct Geometry {
  const Real *jacobian, *dr_dx, *dr_dy, *ds_dx, *ds_dy;
};

/// Face connectivity and geometry, [faces] each. Points run from (x0, y0) to (x1, y1), the left element's
/// direction along its local face.
template <class Real>
struct Faces {
  const index_t *left, *right;
  const std::int8_t *left_local, *right_local;
  const Real *normal_x, *normal_y, *length;
  const Real *x0, *y0, *x1, *y1;
  const std::int32_t* boundary;  ///< boundary group of a boundary face (the Boundary functor's first argument)
  /// [faces][3] or null: the boundary curve's tangent angle relative to a boundary face at its first vertex,
  /// middle and second vertex (mesh/boundary_curve.hpp). Where given, boundary conditions see the curve's
  /// normal at each quadrature point instead of the straight face's (Krivodonova & Berger 2006).
  const Real* bend = nullptr;
  /// [faces] or null (a conforming mesh): the part of the left and the right element's edge the face covers
  /// (whole_edge, first_half, second_half). A hanging face of an adapted mesh joins a fine element's whole
  /// edge with half of the coarse element's: both sides are evaluated at the same physical points, so the
  /// coarse element receives exactly the flux the fine one gives (conservative to round-off).
  const std::int8_t *left_half = nullptr, *right_half = nullptr;

  /// The part of the left (side 0) or right (side 1) element's edge face f covers.
  KEMPE_HD int half(index_t f, int side) const {
    const std::int8_t* h = side == 0 ? left_half : right_half;
    return h == nullptr ? whole_edge : h[f];
  }
};

/// The race strategies of the surface term, all sharing face_integrals below (chosen by name at run time):
/// `colored` (one launch per color, plain stores: no two faces of a color share an element), `atomic` (one
/// launch over all faces, atomic adds), `buffered` (each face writes its two contributions to per-face buffers,
/// then each element gathers its faces': the classic DG-GPU way, reference [3] of the coloring paper), and
/// `elementwise` (each element computes the fluxes of its own faces and keeps its side: every interior flux is
/// computed twice, nothing is shared).
enum class Strategy { colored, atomic, buffered, elementwise };
inline constexpr Named<Strategy> strategies[] = {
    {Strategy::colored, "colored", "one launch per face color, no atomics, deterministic (default)"},
    {Strategy::atomic, "atomic", "one launch over all faces with atomic adds"},
    {Strategy::buffered, "buffered", "per-face buffers, then a gather per element (classic DG-GPU)"},
    {Strategy::elementwise, "elementwise", "each element computes its own faces' fluxes (twice the flux work)"},
};
inline Strategy strategy_from_name(std::string_view name) { return find_by_name("race strategy", name, strategies).value; }

template <bool Atomic, class Real>
KEMPE_HD void add_to(Real* p, Real v) {
  if constexpr (Atomic)
    atomic_add(p, v);
  else
    exclusive_add(p, v);
}

/// The stable time step of element e before the CFL number and the 1 / (2P + 1) factor: its inradius over the
/// largest wave speed |v| + c of its cell average. -1 marks an element that cannot go on: a coefficient that
/// is not finite, or a cell average with non-positive density or pressure (the solver then names it). The
/// step is reduce_min over the elements: one pass over the solution, no host copy of per-element arrays.
template <int P, class Real>
struct StableStep {
  index_t num_elements;
  Real gamma;
  const Real* c;
  const Real* inradius;  ///< [elements]

  KEMPE_HD double operator()(index_t e) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
    Real mean[nv];
    for (int v = 0; v < nv; ++v) {
      for (int m = 0; m < nm; ++m) {
        const Real x = c[(v * nm + m) * num_elements + e];
        if (!(x - x == Real(0))) return -1.0;  // NaN or infinite (x - x is NaN for both)
      }
      mean[v] = c[(v * nm) * num_elements + e] * Real(mode0_value);
    }
    const Real rho = mean[euler::density];
    const Real p = euler::pressure(mean, gamma);
    if (!(rho > Real(0) && p > Real(0))) return -1.0;
    const Real vx = mean[euler::momentum_x] / rho, vy = mean[euler::momentum_y] / rho;
    return double(inradius[e] / (std::sqrt(vx * vx + vy * vy) + std::sqrt(gamma * p / rho)));
  }
};

/// The volume term of element e: rhs = sum_q w_q F(u_q) . grad phi_m (overwrites rhs; eval_surface adds).
template <int P, class Real>
struct EvalVolume {
  index_t num_elements;
  Real gamma;
  const Real* c;
  Real* rhs;
  Tables<Real> t;
  Geometry<Real> g;

  static constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
  /// The CPU backend runs consecutive elements in SIMD lanes (backend.hpp, CpuSimd). GCC vectorizes the element
  /// loop only where it unrolls every loop inside completely, which it does by itself up to p = 2: there one
  /// AVX-512 core computes the term 3.1-3.7 times as fast (docs/benchmarks.md, the volume term in SIMD lanes).
  /// From p = 3 the loops stay rolled and `omp simd` changes nothing (unrolling them by force took minutes of
  /// compile time per order), so there the CPU backend runs blocks of eight consecutive elements instead
  /// (backend.hpp, CpuBlock): block() does accumulate's work with a loop over the eight lanes, which vectorizes
  /// with the loops of the term rolled (accumulate_lanes: the sums over modes and points inside the lane loop,
  /// their accumulators in registers). Both give accumulate's bits (the same operations, multiply-adds explicit).
  static constexpr bool cpu_simd = P <= 2;
  static constexpr int cpu_block = P <= 2 ? 0 : 8;

  /// a b + c in the volume term: explicit from p = 3 (backend.hpp, multiply_add), so that blocks and single
  /// elements agree bit for bit; left to the compiler up to p = 2, where GCC no longer unrolls the loops
  /// completely around explicit fused calls and the SIMD lanes are lost (the term took 2.1x as long,
  /// kempe_bench_dg), and where it contracts the lanes and the single elements alike (tested).
  static KEMPE_HD Real volume_multiply_add(Real a, Real b, Real c) {
    if constexpr (P <= 2)
      return a * b + c;
    else
      return multiply_add(a, b, c);
  }

  KEMPE_HD void operator()(index_t e) const {
    Real acc[nv][nm];
    accumulate(e, acc);
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) rhs[(v * nm + m) * num_elements + e] = acc[v][m];
  }

  /// acc = the volume term of element e.
  KEMPE_HD void accumulate(index_t e, Real (&acc)[nv][nm]) const {
    constexpr int nq = volume_points(P);
    const index_t k = num_elements;
    Real ce[nv][nm];
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) {
        ce[v][m] = c[(v * nm + m) * k + e];
        acc[v][m] = Real(0);
      }
    const Real rx = g.dr_dx[e], ry = g.dr_dy[e], sx = g.ds_dx[e], sy = g.ds_dy[e];
    for (int q = 0; q < nq; ++q) {
      Real u[nv];
      for (int v = 0; v < nv; ++v) {
        Real sum = Real(0);
        for (int m = 0; m < nm; ++m) sum = volume_multiply_add(ce[v][m], t.volume_basis[q * nm + m], sum);
        u[v] = sum;
      }
      Real fx[nv], fy[nv];
      euler::physical_flux(u, gamma, fx, fy);
      const Real w = t.volume_weight[q];
      for (int m = 0; m < nm; ++m) {
        const Real gr = t.volume_grad_r[q * nm + m], gs = t.volume_grad_s[q * nm + m];
        const Real gx = w * (gr * rx + gs * sx), gy = w * (gr * ry + gs * sy);
        for (int v = 0; v < nv; ++v) acc[v][m] = volume_multiply_add(fx[v], gx, volume_multiply_add(fy[v], gy, acc[v][m]));
      }
    }
  }

  static constexpr int block_width = cpu_block > 0 ? cpu_block : 1;

  /// operator() for elements first .. first + cpu_block - 1 (CPU only, backend.hpp's CpuBlock).
  void block(index_t first) const {
    alignas(64) Real acc[nv][nm][block_width];
    accumulate_block(first, acc);
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) {
        Real* to = rhs + std::size_t(v * nm + m) * num_elements + first;
        KEMPE_OMP_SIMD
        for (int l = 0; l < block_width; ++l) to[l] = acc[v][m][l];
      }
  }

  /// acc[.][.][l] = the volume term of element first + l (CPU only): accumulate's operations in the same order for
  /// each element, so the same bits.
  void accumulate_block(index_t first, Real (&acc)[nv][nm][block_width]) const {
    accumulate_lanes<block_width>([first](int l) { return first + l; }, acc);
  }

  /// acc[.][.][l] = the volume term of element element_of(l), W elements anywhere in the mesh (CPU only: the
  /// colored strategy's lanes of faces take their elements' volume terms so, EvalSurface::lanes), with
  /// accumulate_block's operations.
  template <int W, class ElementOf>
  void accumulate_lanes(ElementOf&& element_of, Real (&acc)[nv][nm][W]) const {
    constexpr int nq = volume_points(P), width = W;
    const index_t k = num_elements;
    alignas(64) Real ce[nv][nm][width];
    alignas(64) Real rx[width], ry[width], sx[width], sy[width];
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) {
        const Real* from = c + std::size_t(v * nm + m) * k;
        KEMPE_OMP_SIMD
        for (int l = 0; l < width; ++l) ce[v][m][l] = from[element_of(l)];
      }
    KEMPE_OMP_SIMD
    for (int l = 0; l < width; ++l) {
      const index_t e = element_of(l);
      rx[l] = g.dr_dx[e], ry[l] = g.dr_dy[e], sx[l] = g.ds_dx[e], sy[l] = g.ds_dy[e];
    }
    // Two phases, so that the sums run with their accumulators in registers: first every point's flux,
    // then each mode's sum over the points (the same operations per mode and variable as accumulate, in the
    // same order). A mode at a time read and wrote acc in memory at every point: the multiply-adds then waited
    // on loads and stores.
    static_assert(nv == 4, "the sums below name the four variables' accumulators");
    alignas(64) Real fx[nq][nv][width], fy[nq][nv][width];
    for (int q = 0; q < nq; ++q) {
      alignas(64) Real u[nv][width];
      KEMPE_OMP_SIMD
      for (int l = 0; l < width; ++l) {
        Real s0 = Real(0), s1 = Real(0), s2 = Real(0), s3 = Real(0);
        for (int m = 0; m < nm; ++m) {
          const Real b = t.volume_basis[q * nm + m];
          s0 = volume_multiply_add(ce[0][m][l], b, s0);
          s1 = volume_multiply_add(ce[1][m][l], b, s1);
          s2 = volume_multiply_add(ce[2][m][l], b, s2);
          s3 = volume_multiply_add(ce[3][m][l], b, s3);
        }
        u[0][l] = s0, u[1][l] = s1, u[2][l] = s2, u[3][l] = s3;
      }
      KEMPE_OMP_SIMD
      for (int l = 0; l < width; ++l) euler::physical_flux<Real, width>(&u[0][l], gamma, &fx[q][0][l], &fy[q][0][l]);
    }
    for (int m = 0; m < nm; ++m) {
      KEMPE_OMP_SIMD
      for (int l = 0; l < width; ++l) {
        Real s0 = Real(0), s1 = Real(0), s2 = Real(0), s3 = Real(0);
        for (int q = 0; q < nq; ++q) {
          const Real w = t.volume_weight[q], gr = t.volume_grad_r[q * nm + m], gs = t.volume_grad_s[q * nm + m];
          const Real gx = w * (gr * rx[l] + gs * sx[l]), gy = w * (gr * ry[l] + gs * sy[l]);
          s0 = volume_multiply_add(fx[q][0][l], gx, volume_multiply_add(fy[q][0][l], gy, s0));
          s1 = volume_multiply_add(fx[q][1][l], gx, volume_multiply_add(fy[q][1][l], gy, s1));
          s2 = volume_multiply_add(fx[q][2][l], gx, volume_multiply_add(fy[q][2][l], gy, s2));
          s3 = volume_multiply_add(fx[q][3][l], gx, volume_multiply_add(fy[q][3][l], gy, s3));
        }
        acc[0][m][l] = s0, acc[1][m][l] = s1, acc[2][m][l] = s2, acc[3][m][l] = s3;
      }
    }
  }
};

/// The contributions of face f to the rhs of its two elements: -(L / 2 |J_l|) sum_q w_q F*_v(q) phi_m(q) on
/// the left element's side and +(L / 2 |J_r|) times the same sum with the right element's basis (the
/// neighbour runs along the face the other way, so its point q is the left side's nq - 1 - q). Boundary faces
/// take their right state from the Boundary functor: ghost(group, inside state, nx, ny, x, y, t, out), and
/// their right contribution is zero.
template <int P, class Real, euler::Flux F, class Boundary>
struct FaceIntegrals {
  index_t num_elements;
  Real gamma;
  /// {t, dt, ...} in the backend's memory, and the stage's time is t + stage_fraction dt: read where the kernel
  /// runs, so that one recorded Runge-Kutta step (a CUDA graph) serves every step.
  const Real* clock;
  Real stage_fraction;
  const Real* c;
  Tables<Real> t;
  Geometry<Real> g;
  Faces<Real> fc;
  Boundary boundary;
  /// [4][num_faces] or null: where given, the passes that evaluate the traces (integrate, lanes, add_side on a
  /// face's left element) also store each interior face's sums for the KXRCF indicator (store_kxrcf), so that
  /// the subcell blend's flags need no pass of their own over every element's faces (TroubledFromFaces). On the
  /// CPU only: on the GPU registers limit these kernels, and the extra path, even untaken, made the surface pass
  /// at p = 3 and the elementwise pass at p = 1 and 3 spill more (ptxas -v, sm_90), so the GPU keeps
  /// TroubledCells' pass.
  Real* kxrcf = nullptr;
  index_t num_faces = 0;

  static constexpr int nm = basis::num_modes(P), nq = face_points(P), nv = euler::num_vars;

  /// One face point's terms of the KXRCF sums (TroubledCells, kernels/limiter_K.hpp), of weight w (the point's
  /// quadrature weight times half the face's length) and traces rho, mx, my on each side: each side adds, where its
  /// own velocity points into its element (against its outward normal), w |rho_l - rho_r| to its jump and w to its
  /// inflow length. Selected rather than branched on, so that lanes of faces vectorize it (adding a zero is exact).
  static KEMPE_HD void add_kxrcf_point(Real w, Real rho_l, Real mx_l, Real my_l, Real rho_r, Real mx_r, Real my_r, Real nx, Real ny,
                                       Real& jump_l, Real& inflow_l, Real& jump_r, Real& inflow_r) {
    const Real d = rho_l - rho_r, jump = w * (d < Real(0) ? -d : d);
    const bool into_l = mx_l * nx + my_l * ny < Real(0);  // the normal points out of the left element
    const bool into_r = mx_r * nx + my_r * ny > Real(0);
    jump_l += into_l ? jump : Real(0);
    inflow_l += into_l ? w : Real(0);
    jump_r += into_r ? jump : Real(0);
    inflow_r += into_r ? w : Real(0);
  }
  /// Stores face f's KXRCF sums, [left jump, left inflow, right jump, right inflow][faces].
  KEMPE_HD void write_kxrcf(index_t f, Real jump_l, Real inflow_l, Real jump_r, Real inflow_r) const {
    kxrcf[f] = jump_l;
    kxrcf[num_faces + f] = inflow_l;
    kxrcf[2 * std::size_t(num_faces) + f] = jump_r;
    kxrcf[3 * std::size_t(num_faces) + f] = inflow_r;
  }

  /// Face f's KXRCF sums from its traces at its points (add_kxrcf_point), trace(q, v, left) the left or right
  /// trace's variable v at the face's point q. Boundary faces store none.
  template <class Trace>
  KEMPE_HD void store_kxrcf(index_t f, Trace&& trace) const {
    const Real half = fc.length[f] / Real(2), nx = fc.normal_x[f], ny = fc.normal_y[f];
    Real jump_l = Real(0), inflow_l = Real(0), jump_r = Real(0), inflow_r = Real(0);
    for (int q = 0; q < nq; ++q)
      add_kxrcf_point(t.face_weight[q] * half, trace(q, euler::density, true), trace(q, euler::momentum_x, true),
                      trace(q, euler::momentum_y, true), trace(q, euler::density, false), trace(q, euler::momentum_x, false),
                      trace(q, euler::momentum_y, false), nx, ny, jump_l, inflow_l, jump_r, inflow_r);
    write_kxrcf(f, jump_l, inflow_l, jump_r, inflow_r);
  }

  /// store_kxrcf for W faces in SIMD lanes (lanes: traces [points][vars][lanes]): the same sums in the same order
  /// (the signs of the normal momenta change from face to face along a shock: branches one face at a time were
  /// mispredicted). Boundary lanes store none; a lane that repeats a face stores its sums again.
  template <int W>
  void store_kxrcf_lanes(const index_t (&face)[W], const Real (&ul)[nq][nv][W], const Real (&ur)[nq][nv][W]) const {
    alignas(64) Real half[W], nx[W], ny[W], jump_l[W], inflow_l[W], jump_r[W], inflow_r[W];
    for (int l = 0; l < W; ++l) {
      const index_t f = face[l];
      half[l] = fc.length[f] / Real(2), nx[l] = fc.normal_x[f], ny[l] = fc.normal_y[f];
      jump_l[l] = inflow_l[l] = jump_r[l] = inflow_r[l] = Real(0);
    }
    for (int q = 0; q < nq; ++q) {
      const Real weight = t.face_weight[q];
      KEMPE_OMP_SIMD
      for (int l = 0; l < W; ++l)
        add_kxrcf_point(weight * half[l], ul[q][euler::density][l], ul[q][euler::momentum_x][l], ul[q][euler::momentum_y][l],
                        ur[q][euler::density][l], ur[q][euler::momentum_x][l], ur[q][euler::momentum_y][l], nx[l], ny[l], jump_l[l],
                        inflow_l[l], jump_r[l], inflow_r[l]);
    }
    for (int l = 0; l < W; ++l)
      if (fc.right[face[l]] != no_element) write_kxrcf(face[l], jump_l[l], inflow_l[l], jump_r[l], inflow_r[l]);
  }

  /// Both sides of face f handed out one (variable, mode) at a time: emit(v, m, to_l, to_r), to_r zero on a
  /// boundary face. Every point's flux first, then each mode's sums over the points, so that no sum is live
  /// while the fluxes are computed: summed point by point, the GPU's face pass held all 2 nv nm sums in
  /// registers across the flux (HLL, the cases' GroupBoundary, 128 x 1 threads: 152 registers at p = 1 against
  /// 138, spill stores of 1036 and 3120 bytes at p = 4 and 5 against 448 and 1276; in four blocks of 128
  /// threads 72 and 464 bytes at p = 1 and 2 against 0 and 8; bench/registers.sh, docs/benchmarks.md).
  /// Each sum adds (w flux) * basis over the points in order, from zero, and then scales: the operations of
  /// summing point by point, in the same order.
  template <class Emit>
  KEMPE_HD void integrate(index_t f, Emit&& emit) const {
    Real weighted[nq][nv];
    const Real *basis_l[nq], *basis_r[nq];
    for_each_point(f, true, [&](int q, Real w, const Real (&flux)[nv], const Real* bl, const Real* br) {
      for (int v = 0; v < nv; ++v) weighted[q][v] = w * flux[v];
      basis_l[q] = bl, basis_r[q] = br;
    });
    const index_t l = fc.left[f], r = fc.right[f];
    const Real half_length = fc.length[f] / Real(2);
    const Real scale_l = -half_length / g.jacobian[l];
    const Real scale_r = r == no_element ? Real(0) : half_length / g.jacobian[r];
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) {
        Real sum_l = Real(0), sum_r = Real(0);
        for (int p = 0; p < nq; ++p) {
          sum_l += weighted[p][v] * basis_l[p][m];
          sum_r += weighted[p][v] * basis_r[p][m];
        }
        emit(v, m, sum_l * scale_l, sum_r * scale_r);
      }
  }

  /// acc += one side of face f only (the left element's when `left`, else the right one's): the elementwise
  /// strategy's share. Added straight into the caller's accumulator with the side's scale folded into each
  /// point's weight, so that no face-sized temporary is live across the face loop (registers are what limit
  /// this kernel: kempe_bench_gpu occupancy). Equal to that side of integrate to rounding.
  KEMPE_HD void add_side(index_t f, bool left, Real (&acc)[nv][nm]) const {
    const Real half_length = fc.length[f] / Real(2);
    const Real scale = left ? -half_length / g.jacobian[fc.left[f]] : half_length / g.jacobian[fc.right[f]];
    for_each_point(f, left, [&](int, Real w, const Real (&flux)[nv], const Real* bl, const Real* br) {
      const Real* b = left ? bl : br;
      const Real ws = scale * w;
      for (int m = 0; m < nm; ++m)
        for (int v = 0; v < nv; ++v) acc[v][m] += ws * flux[v] * b[m];
    });
  }

  /// flux = F*(ul, ur) . n at face f's point q (per unit length, the normal pointing from left to right). On a
  /// boundary face ur is first set to the ghost state of ul there (the Boundary functor).
  KEMPE_HD void point_flux(index_t f, int q, const Real (&ul)[nv], Real (&ur)[nv], Real (&flux)[nv]) const {
    if (fc.right[f] == no_element) ghost_state(f, q, ul, ur);
    euler::numerical_flux(F, ul, ur, fc.normal_x[f], fc.normal_y[f], gamma, flux);
  }

  /// ur = the ghost state of ul at boundary face f's point q (the Boundary functor). One host copy
  /// (KEMPE_HD_ONE_HOST_COPY): the boundary functor's named state functions (an exact Riemann solver among them)
  /// are long and only boundary faces call it.
  KEMPE_HD_ONE_HOST_COPY void ghost_state(index_t f, int q, const Real (&ul)[nv], Real (&ur)[nv]) const {
    const Real nx = fc.normal_x[f], ny = fc.normal_y[f];
    // Face points from (x0, y0) at the reference point -1 to (x1, y1) at +1.
    const Real s = (Real(1) + t.face_abscissa[q]) / Real(2);
    const Real x = fc.x0[f] + s * (fc.x1[f] - fc.x0[f]), y = fc.y0[f] + s * (fc.y1[f] - fc.y0[f]);
    // The ghost state sees the boundary curve's normal at this point (a slip wall then reflects the
    // velocity about the true wall); the flux keeps the face's own normal, so the scheme stays
    // conservative on the straight elements (Krivodonova & Berger 2006).
    Real bx = nx, by = ny;
    if (fc.bend != nullptr) {
      const Real* a = fc.bend + 3 * f;
      const Real xi = t.face_abscissa[q];
      const Real angle = a[1] + xi * (a[2] - a[0]) / Real(2) + xi * xi * ((a[0] + a[2]) / Real(2) - a[1]);
      const Real cosine = std::cos(angle), sine = std::sin(angle);
      bx = cosine * nx - sine * ny;
      by = sine * nx + cosine * ny;
    }
    boundary(fc.boundary[f], ul, bx, by, x, y, clock[0] + stage_fraction * clock[1], ur);
  }

  /// integrate for W faces at once in SIMD lanes (CPU only: EvalSurface::lanes): acc_l[.][.][l] and
  /// acc_r[.][.][l] are face[l]'s two contributions. The same sums in the same order as integrate, each in a
  /// loop over the lanes that GCC vectorizes with the sum's own loop inside (as EvalVolume's blocks); rounding
  /// may differ from integrate where GCC contracts differently. Lanes may repeat a face.
  template <int W>
  void lanes(const index_t (&face)[W], Real (&acc_l)[nv][nm][W], Real (&acc_r)[nv][nm][W]) const {
    const index_t k = num_elements;
    index_t left[W], right_read[W];
    const Real *basis_l[W], *basis_r[W];
    alignas(64) Real scale_l[W], scale_r[W], nx[W], ny[W];
    bool any_boundary = false;
    for (int l = 0; l < W; ++l) {
      const index_t f = face[l], le = fc.left[f], re = fc.right[f];
      left[l] = le;
      right_read[l] = re == no_element ? le : re;  // a boundary face's right trace is replaced by the ghost state
      basis_l[l] = side_basis<P>(t.face_basis, t.face_half_basis, fc.left_local[f], fc.half(f, 0));
      basis_r[l] = re == no_element ? basis_l[l] : side_basis<P>(t.face_basis, t.face_half_basis, fc.right_local[f], fc.half(f, 1));
      const Real half_length = fc.length[f] / Real(2);
      scale_l[l] = -half_length / g.jacobian[le];
      scale_r[l] = re == no_element ? Real(0) : half_length / g.jacobian[re];
      nx[l] = fc.normal_x[f], ny[l] = fc.normal_y[f];
      any_boundary = any_boundary || re == no_element;
    }
    // Each lane's basis at its points: the right side's point q is the left side's nq - 1 - q.
    alignas(64) Real bl[nq][nm][W], br[nq][nm][W];
    for (int q = 0; q < nq; ++q)
      for (int m = 0; m < nm; ++m)
        for (int l = 0; l < W; ++l) {
          bl[q][m][l] = basis_l[l][q * nm + m];
          br[q][m][l] = basis_r[l][(nq - 1 - q) * nm + m];
        }
    // Each sum below runs with its accumulators in registers, one per variable and side: summed a variable at
    // a time through arrays in memory, the multiply-adds waited on their loads and stores.
    static_assert(nv == 4, "the sums below name the four variables' accumulators");
    alignas(64) Real cl[nv][nm][W], cr[nv][nm][W];
    lanes_from(c, k, left, consecutive(left), cl);
    lanes_from(c, k, right_read, consecutive(right_read), cr);
    alignas(64) Real ul[nq][nv][W], ur[nq][nv][W];
    for (int q = 0; q < nq; ++q) {
      KEMPE_OMP_SIMD
      for (int l = 0; l < W; ++l) {
        Real l0 = Real(0), l1 = Real(0), l2 = Real(0), l3 = Real(0);
        Real r0 = Real(0), r1 = Real(0), r2 = Real(0), r3 = Real(0);
        for (int m = 0; m < nm; ++m) {
          const Real a = bl[q][m][l], b = br[q][m][l];
          l0 += cl[0][m][l] * a, l1 += cl[1][m][l] * a, l2 += cl[2][m][l] * a, l3 += cl[3][m][l] * a;
          r0 += cr[0][m][l] * b, r1 += cr[1][m][l] * b, r2 += cr[2][m][l] * b, r3 += cr[3][m][l] * b;
        }
        ul[q][0][l] = l0, ul[q][1][l] = l1, ul[q][2][l] = l2, ul[q][3][l] = l3;
        ur[q][0][l] = r0, ur[q][1][l] = r1, ur[q][2][l] = r2, ur[q][3][l] = r3;
      }
    }
    if (kxrcf != nullptr) store_kxrcf_lanes(face, ul, ur);
    if (any_boundary)
      for (int l = 0; l < W; ++l) {
        if (fc.right[face[l]] != no_element) continue;
        for (int q = 0; q < nq; ++q) {
          Real inside[nv], ghost[nv];
          for (int v = 0; v < nv; ++v) inside[v] = ul[q][v][l], ghost[v] = ur[q][v][l];  // as integrate's stand-in
          ghost_state(face[l], q, inside, ghost);
          for (int v = 0; v < nv; ++v) ur[q][v][l] = ghost[v];
        }
      }
    alignas(64) Real flux[nq][nv][W];  // times the point's weight
    for (int q = 0; q < nq; ++q) {
      const Real w = t.face_weight[q];
      KEMPE_NO_UNROLL
      for (int l = 0; l < W; ++l) {
        Real a[nv], b[nv], out[nv];
        for (int v = 0; v < nv; ++v) a[v] = ul[q][v][l], b[v] = ur[q][v][l];
        euler::numerical_flux(F, a, b, nx[l], ny[l], gamma, out);
        for (int v = 0; v < nv; ++v) flux[q][v][l] = w * out[v];
      }
    }
    for (int m = 0; m < nm; ++m) {
      KEMPE_OMP_SIMD
      for (int l = 0; l < W; ++l) {
        Real l0 = Real(0), l1 = Real(0), l2 = Real(0), l3 = Real(0);
        Real r0 = Real(0), r1 = Real(0), r2 = Real(0), r3 = Real(0);
        for (int q = 0; q < nq; ++q) {
          const Real a = bl[q][m][l], b = br[q][m][l];
          const Real f0 = flux[q][0][l], f1 = flux[q][1][l], f2 = flux[q][2][l], f3 = flux[q][3][l];
          l0 += f0 * a, l1 += f1 * a, l2 += f2 * a, l3 += f3 * a;
          r0 += f0 * b, r1 += f1 * b, r2 += f2 * b, r3 += f3 * b;
        }
        acc_l[0][m][l] = l0 * scale_l[l], acc_l[1][m][l] = l1 * scale_l[l];
        acc_l[2][m][l] = l2 * scale_l[l], acc_l[3][m][l] = l3 * scale_l[l];
        acc_r[0][m][l] = r0 * scale_r[l], acc_r[1][m][l] = r1 * scale_r[l];
        acc_r[2][m][l] = r2 * scale_r[l], acc_r[3][m][l] = r3 * scale_r[l];
      }
    }
  }

 private:
  /// Calls at_point(q, w_q, F*(q), left basis at q, right basis at q) at each face point q in order; stores the
  /// face's KXRCF sums too where kxrcf is given and `record` (each face's sums are stored once).
  template <class AtPoint>
  KEMPE_HD void for_each_point(index_t f, bool record, AtPoint&& at_point) const {
    const index_t k = num_elements;
    const index_t l = fc.left[f], r = fc.right[f];
    const int kl = fc.left_local[f], kr = r == no_element ? 0 : fc.right_local[f];
    // Both traces at every point first, one variable's coefficients at a time: nq x nv point values per side
    // are live across the point loop instead of nm x nv coefficients (at p = 2 half as many registers, which
    // is what limits the elementwise pass's occupancy on the GPU).
    // A boundary face's right trace is the ghost state (point_flux): it reads its left element's coefficients as
    // stand-ins, so that no load waits on a branch.
    const index_t r_read = r == no_element ? l : r;
    // Each side's basis along its part of its edge (a boundary face's right side reads the left's as stand-in).
    const Real* basis_l = side_basis<P>(t.face_basis, t.face_half_basis, kl, fc.half(f, 0));
    const Real* basis_r = r == no_element ? basis_l : side_basis<P>(t.face_basis, t.face_half_basis, kr, fc.half(f, 1));
    Real ul[nq][nv], ur[nq][nv];
    for (int v = 0; v < nv; ++v) {
      Real cl[nm], cr[nm];
      for (int m = 0; m < nm; ++m) {
        cl[m] = c[(v * nm + m) * k + l];
        cr[m] = c[(v * nm + m) * k + r_read];
      }
      for (int q = 0; q < nq; ++q) {
        const Real* bl = basis_l + q * nm;
        const Real* br = basis_r + (nq - 1 - q) * nm;
        Real sl = Real(0), sr = Real(0);
        for (int m = 0; m < nm; ++m) {
          sl += cl[m] * bl[m];
          sr += cr[m] * br[m];
        }
        ul[q][v] = sl;
        ur[q][v] = sr;
      }
    }
    if constexpr (!on_device())
      if (kxrcf != nullptr && record && r != no_element)
        store_kxrcf(f, [&](int q, int v, bool left_side) { return left_side ? ul[q][v] : ur[q][v]; });
    for (int q = 0; q < nq; ++q) {
      Real flux[nv];
      point_flux(f, q, ul[q], ur[q], flux);
      at_point(q, t.face_weight[q], flux, basis_l + q * nm, basis_r + (nq - 1 - q) * nm);
    }
  }
};

/// Faces ahead whose right element a face loop prefetches: enough to cover a memory latency (about 100 ns)
/// at 50-150 ns per face.
inline constexpr index_t prefetch_distance = 8;

/// A pass's launch shape (LaunchShape in backend.hpp): threads per block, and blocks it must fit per multiprocessor.
struct PassShape {
  int block_size, min_blocks_per_sm;
};

/// Launch shape of the colored and atomic face passes (EvalSurface): one block of 128 threads per multiprocessor
/// at least. At p = 1 in double the pass needs 128-138 registers (by flux and boundary) whatever fewer blocks it
/// is asked to fit (1-4, `kempe_bench_gpu faces`), 12 warps a multiprocessor.
template <int P, class Real>
constexpr PassShape face_pass_shape() {
  return {128, 1};
}

/// colored and atomic: face `first + i` (of faces [first, end)) adds its contributions to both elements' rhs.
/// WithVolume (colored, one launch per color in ascending order): each element's volume term comes with its
/// first face instead of from EvalVolume. The pass of color `color` stores, for each of its faces' elements whose
/// lowest face color (`first_color`, FirstFaceColor) it is, the volume term plus the face's contribution, the
/// same sum the volume pass and the add would give; the other elements add as before. On a mesh with one face of
/// each color per element the first color's pass thus writes every element's rhs without reading it, and no
/// pass over the elements precedes the colors. CPU only, in lanes (the GPU keeps the volume pass).
template <int P, class Real, euler::Flux F, bool Atomic, class Boundary, bool WithVolume = false>
struct EvalSurface {
  static constexpr int block_size = face_pass_shape<P, Real>().block_size;
  static constexpr int min_blocks_per_sm = face_pass_shape<P, Real>().min_blocks_per_sm;
  index_t first, end;
  Real* rhs;
  FaceIntegrals<P, Real, F, Boundary> integrals;
  const std::int8_t* first_color = nullptr;  ///< [elements] (WithVolume)
  int color = 0;                             ///< of this launch's faces (WithVolume)

  static_assert(!(WithVolume && Atomic), "the volume term goes with the first color's faces of the colored strategy");

  EvalVolume<P, Real> volume() const {
    return EvalVolume<P, Real>{integrals.num_elements, integrals.gamma, integrals.c, rhs, integrals.t, integrals.g};
  }

  KEMPE_HD void operator()(index_t i) const {
    static_assert(!WithVolume, "the volume term goes with the faces in the CPU's lanes only (lanes)");
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
    const index_t k = integrals.num_elements, f = first + i;
    // The left elements of a color's faces ascend (the orderings sort them), so the hardware prefetcher
    // follows them; the right elements jump, one cache line per (variable, mode) plane.
    if (f + prefetch_distance < end) {
      const index_t ahead = integrals.fc.right[f + prefetch_distance];
      if (ahead != no_element)
        for (int vm = 0; vm < nv * nm; ++vm) {
          prefetch(&integrals.c[vm * k + ahead]);
          prefetch(&rhs[vm * k + ahead]);
        }
    }
    const index_t l = integrals.fc.left[f], r = integrals.fc.right[f];
    integrals.integrate(f, [&](int v, int m, Real to_l, Real to_r) {
      add_to<Atomic>(&rhs[(v * nm + m) * k + l], to_l);
      if (r != no_element) add_to<Atomic>(&rhs[(v * nm + m) * k + r], to_r);
    });
  }

  /// The CPU backend computes faces in lanes of this many (backend.hpp, CpuLanes; FaceIntegrals::lanes): the
  /// faces of a color share no element, so a block of them adds its contributions with plain stores (the
  /// atomic strategy's with atomic adds). The atomic strategy's lanes were slower at p = 1 (1.07-1.46x its
  /// stage in three rounds, kempe_bench_dg) and no faster at p = 2, so its faces go one at a time there.
  static constexpr int cpu_lanes = Atomic && P <= 2 ? 0 : 8;
  /// How far ahead of a block of lanes its pass prefetches the face arrays (lanes): four blocks.
  static constexpr index_t face_lookahead = 32;

  /// operator() for items first .. first + count - 1 (CPU only).
  void lanes(index_t first_item, int count) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars, W = 8;
    const index_t k = integrals.num_elements;
    index_t face[W];
    for (int l = 0; l < W; ++l) face[l] = first + first_item + (l < count ? l : 0);
    // The face arrays four blocks ahead: a dozen streams that advance a line every one to eight blocks,
    // beside the solution's planes, more than the hardware's prefetcher follows, and the next block's lookahead
    // below waits on their loads otherwise.
    if (first + first_item + face_lookahead < end) {
      const index_t f = first + first_item + face_lookahead;
      const auto& fc = integrals.fc;
      prefetch(&fc.left[f]), prefetch(&fc.right[f]), prefetch(&fc.left_local[f]), prefetch(&fc.right_local[f]);
      prefetch(&fc.normal_x[f]), prefetch(&fc.normal_y[f]), prefetch(&fc.length[f]);
      if (fc.left_half != nullptr) prefetch(&fc.left_half[f]), prefetch(&fc.right_half[f]);
    }
    // The next block's right elements jump (the left ones ascend): fetched while this block computes, with
    // their Jacobians, which the face integrals divide by. From p = 2 their 2 x 4 x modes lines a face (384 a
    // block at p = 2) go to the outer caches: fetched into the first level, they filled its miss buffers and the
    // prefetches themselves waited (docs/benchmarks.md, the surface term in lanes of faces).
    for (int l = 0; l < W; ++l) {
      const index_t f = first + first_item + W + l;
      const index_t ahead = f < end ? integrals.fc.right[f] : no_element;
      if (ahead != no_element) {
        for (int vm = 0; vm < nv * nm; ++vm) {
          if constexpr (P >= 2) {
            prefetch_outer(&integrals.c[vm * k + ahead]);
            prefetch_outer(&rhs[vm * k + ahead]);
          } else {
            prefetch(&integrals.c[vm * k + ahead]);
            prefetch(&rhs[vm * k + ahead]);
          }
        }
        prefetch(&integrals.g.jacobian[ahead]);
        if constexpr (WithVolume) {
          prefetch(&integrals.g.dr_dx[ahead]), prefetch(&integrals.g.dr_dy[ahead]);
          prefetch(&integrals.g.ds_dx[ahead]), prefetch(&integrals.g.ds_dy[ahead]);
        }
      }
    }
    // The left ones ascend, but in nv * nm planes of c and of rhs each: more streams than the hardware's
    // prefetcher follows. The next block's first and last left elements bound the lines it reads there, fetched
    // into the outer caches: into the first level they made the p = 2 pass slower (1.03 times as long), into the
    // outer ones it takes 0.66 of its time on the benchmark's grid (docs/benchmarks.md).
    if (first + first_item + W < end) {
      const index_t next = first + first_item + W, last = next + W - 1 < end ? next + W - 1 : end - 1;
      const index_t from = integrals.fc.left[next], to = integrals.fc.left[last];
      for (int vm = 0; vm < nv * nm; ++vm) {
        prefetch_outer(&integrals.c[vm * k + from]);
        prefetch_outer(&integrals.c[vm * k + to]);
        prefetch_outer(&rhs[vm * k + from]);
        prefetch_outer(&rhs[vm * k + to]);
      }
    }
    alignas(64) Real to_l[nv][nm][W], to_r[nv][nm][W];
    integrals.lanes(face, to_l, to_r);
    if constexpr (WithVolume) {
      if (add_volume_lanes(face, count, to_l, to_r)) return;
    }
    if constexpr (!Atomic) {
      // A color's faces share no element, so the two sides' adds go in any order.
      index_t left[W], right[W];
      for (int l = 0; l < W; ++l) left[l] = integrals.fc.left[face[l]], right[l] = integrals.fc.right[face[l]];
      store_lanes(left, count, [&to_l](int v, int m, int l, Real now) { return now + to_l[v][m][l]; });
      store_lanes(right, count, [&to_r](int v, int m, int l, Real now) { return now + to_r[v][m][l]; });
    } else {
      for (int l = 0; l < count; ++l) {
        const index_t le = integrals.fc.left[face[l]], re = integrals.fc.right[face[l]];
        for (int v = 0; v < nv; ++v)
          for (int m = 0; m < nm; ++m) {
            add_to<Atomic>(&rhs[(v * nm + m) * k + le], to_l[v][m][l]);
            if (re != no_element) add_to<Atomic>(&rhs[(v * nm + m) * k + re], to_r[v][m][l]);
          }
      }
    }
  }

 private:
  /// rhs[.][.][element[l]] = value(v, m, l, its value now) for the first `count` lanes (no_element: none), with
  /// vector loads and stores where the W elements are consecutive (consecutive; the color renumbering's runs).
  template <int W, class Value>
  void store_lanes(const index_t (&element)[W], int count, Value&& value) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
    const index_t k = integrals.num_elements;
    if (count == W && element[0] != no_element && consecutive(element)) {
      for (int v = 0; v < nv; ++v)
        for (int m = 0; m < nm; ++m) {
          Real* plane = rhs + std::size_t(v * nm + m) * k + element[0];
          KEMPE_OMP_SIMD
          for (int l = 0; l < W; ++l) plane[l] = value(v, m, l, plane[l]);
        }
      return;
    }
    for (int l = 0; l < count; ++l) {
      if (element[l] == no_element) continue;
      for (int v = 0; v < nv; ++v)
        for (int m = 0; m < nm; ++m) {
          Real* to = &rhs[std::size_t(v * nm + m) * k + element[l]];
          *to = value(v, m, l, *to);
        }
    }
  }

  /// WithVolume: where this color is the first of any of the block's elements, their volume terms in lanes
  /// (EvalVolume::accumulate_lanes, the volume pass's operations), and each element's rhs = its volume term + its
  /// contribution where this is its first color, rhs += its contribution elsewhere; false, with nothing written,
  /// where it is the first of none (the other colors' passes on a mesh with one face of each color per element).
  template <int W>
  bool add_volume_lanes(const index_t (&face)[W], int count, const Real (&to_l)[euler::num_vars][basis::num_modes(P)][W],
                        const Real (&to_r)[euler::num_vars][basis::num_modes(P)][W]) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
    index_t left[W], right[W], right_read[W];
    bool first_l[W], first_r[W], any_l = false, any_r = false;
    for (int l = 0; l < W; ++l) {
      left[l] = integrals.fc.left[face[l]], right[l] = integrals.fc.right[face[l]];
      right_read[l] = right[l] == no_element ? left[l] : right[l];
      first_l[l] = l < count && first_color[left[l]] == color;
      first_r[l] = l < count && right[l] != no_element && first_color[right[l]] == color;
      any_l = any_l || first_l[l], any_r = any_r || first_r[l];
    }
    if (!any_l && !any_r) return false;
    alignas(64) Real vol_l[nv][nm][W], vol_r[nv][nm][W];
    if (any_l) volume_of(left, vol_l);
    if (any_r) volume_of(right_read, vol_r);
    // A color's faces share no element, so the two sides' stores go in any order. A side without any first
    // color here adds only: its volume terms were not computed.
    auto store_side = [this, count](const index_t(&element)[W], bool any, const bool(&is_first)[W], const auto& vol, const auto& to) {
      if (any)
        store_lanes(element, count, [&](int v, int m, int l, Real now) { return is_first[l] ? vol[v][m][l] + to[v][m][l] : now + to[v][m][l]; });
      else
        store_lanes(element, count, [&](int v, int m, int l, Real now) { return now + to[v][m][l]; });
    };
    store_side(left, any_l, first_l, vol_l, to_l);
    store_side(right, any_r, first_r, vol_r, to_r);
    return true;
  }

  /// vol[.][.][l] = the volume term of element[l] (EvalVolume::accumulate_lanes), read with vector loads where the
  /// elements are consecutive.
  template <int W>
  void volume_of(const index_t (&element)[W], Real (&vol)[euler::num_vars][basis::num_modes(P)][W]) const {
    const EvalVolume<P, Real> volume_term = volume();
    if (consecutive(element))
      volume_term.template accumulate_lanes<W>([e0 = element[0]](int l) { return e0 + l; }, vol);
    else
      volume_term.template accumulate_lanes<W>([&element](int l) { return element[l]; }, vol);
  }
};

/// first[e] = c for each element e of color c's faces [begin, end), launched for the colors in descending order:
/// each element ends with its lowest face color, the colored pass that carries its volume term
/// (EvalSurface's WithVolume). The faces of one color share no element, so no two items write one place.
struct FirstFaceColor {
  index_t begin;
  const index_t* left;
  const index_t* right;
  std::int8_t color;
  std::int8_t* first;
  KEMPE_HD void operator()(index_t i) const {
    const index_t f = begin + i;
    first[left[f]] = color;
    if (right[f] != no_element) first[right[f]] = color;
  }
};

/// buffered, first pass: face f stores its two contributions in buffers [2][vars][modes][faces] (side 0 the
/// left element's, side 1 the right one's), face index fastest.
template <int P, class Real, euler::Flux F, class Boundary>
struct EvalSurfaceBuffered {
  index_t num_faces;
  Real* buffer;
  FaceIntegrals<P, Real, F, Boundary> integrals;

  KEMPE_HD void operator()(index_t f) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
    const std::size_t side = std::size_t(nv) * nm * num_faces;
    integrals.integrate(f, [&](int v, int m, Real to_l, Real to_r) {
      buffer[std::size_t(v * nm + m) * num_faces + f] = to_l;
      buffer[side + std::size_t(v * nm + m) * num_faces + f] = to_r;
    });
  }
};

/// buffered, second pass: element e adds its faces' contributions from the buffers. `element_faces` is
/// [elements][3], each face in the element's local order; `element_half_faces` (null on a conforming mesh) the
/// second half's face where an edge is split (no_element elsewhere).
template <int P, class Real>
struct GatherFaces {
  index_t num_elements, num_faces;
  const Real* buffer;
  const index_t* element_faces;
  const index_t* face_left;
  Real* rhs;
  const index_t* element_half_faces = nullptr;

  KEMPE_HD void operator()(index_t e) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
    const std::size_t side = std::size_t(nv) * nm * num_faces;
    auto gather = [&](index_t f) {
      const Real* b = buffer + (face_left[f] == e ? 0 : side);
      for (int v = 0; v < nv; ++v)
        for (int m = 0; m < nm; ++m) rhs[(v * nm + m) * num_elements + e] += b[std::size_t(v * nm + m) * num_faces + f];
    };
    for (int j = 0; j < 3; ++j) {
      gather(element_faces[3 * e + j]);
      if (element_half_faces != nullptr && element_half_faces[3 * e + j] != no_element) gather(element_half_faces[3 * e + j]);
    }
  }
};

/// elementwise: acc += element e's side of the integrals of its faces, in local face order, a split edge's
/// first half then its second (the neighbour's state is evaluated at the face points, its side of the
/// integral is not accumulated). `element_half_faces` is null on a conforming mesh.
template <int P, class Real, euler::Flux F, class Boundary>
KEMPE_HD void add_own_faces(const FaceIntegrals<P, Real, F, Boundary>& integrals, const index_t* element_faces,
                            const index_t* element_half_faces, index_t e, Real (&acc)[euler::num_vars][basis::num_modes(P)]) {
  for (int j = 0; j < 3; ++j) {
    const index_t f = element_faces[3 * e + j];
    integrals.add_side(f, integrals.fc.left[f] == e, acc);
    if (element_half_faces == nullptr) continue;
    const index_t h = element_half_faces[3 * e + j];
    if (h != no_element) integrals.add_side(h, integrals.fc.left[h] == e, acc);
  }
}

/// elementwise: element e adds its side of its faces' integrals to its rhs.
template <int P, class Real, euler::Flux F, class Boundary>
struct EvalSurfaceElementwise {
  const index_t* element_faces;
  Real* rhs;
  FaceIntegrals<P, Real, F, Boundary> integrals;
  const index_t* element_half_faces = nullptr;  ///< [elements][3] or null (add_own_faces)

  KEMPE_HD void operator()(index_t e) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
    const index_t k = integrals.num_elements;
    Real acc[nv][nm];
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) acc[v][m] = rhs[(v * nm + m) * k + e];
    add_own_faces(integrals, element_faces, element_half_faces, e, acc);
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) rhs[(v * nm + m) * k + e] = acc[v][m];
  }
};

/// Launch shape of the elementwise pass (EvalElement, EvalElementStage; LaunchShape in backend.hpp): blocks of
/// 128 and as many of them per multiprocessor as the registers allow with little or no spilling, from
/// `kempe_bench_gpu occupancy` on an H100 (4M triangles, docs/benchmarks.md). In double, p = 1 fits 128
/// registers (four blocks, 1.06 ms against 1.83 at one block of 256) and p = 2 168 (three blocks, 12 warps:
/// 2.23 against 2.64 ms); from p = 3 any cap spills more than the occupancy brings. Float needs about half the
/// registers: p = 2 fits four blocks, and p = 3 three (128 bytes spilled, as at any shape). Measured with a
/// fixed free-stream boundary: the case files' boundary table (GroupBoundary) costs a few registers more, and
/// under these caps spills 44-60 bytes at p = 1 and 12-20 at p = 2 in double, by flux (ptxas -v; not timed).
template <int P, class Real>
constexpr PassShape element_pass_shape() {
  constexpr bool is_double = sizeof(Real) == sizeof(double);
  if (P == 1 && is_double) return {128, 4};
  if (P == 2) return {128, is_double ? 3 : 4};
  if (P == 3 && !is_double) return {128, 3};
  return {128, 1};
}

/// elementwise, fused with the volume term: element e's whole right-hand side in one pass (its volume term,
/// then its side of each of its three faces), kept in registers and written once. The adds come in the same
/// order as eval_volume followed by EvalSurfaceElementwise, so the result is the same bit for bit; the rhs
/// makes one trip to memory instead of two.
template <int P, class Real, euler::Flux F, class Boundary>
struct EvalElement {
  static constexpr int block_size = element_pass_shape<P, Real>().block_size;
  static constexpr int min_blocks_per_sm = element_pass_shape<P, Real>().min_blocks_per_sm;
  EvalVolume<P, Real> volume;
  const index_t* element_faces;
  FaceIntegrals<P, Real, F, Boundary> integrals;
  const index_t* element_half_faces = nullptr;  ///< [elements][3] or null (add_own_faces)

  static constexpr int nm = basis::num_modes(P), nv = euler::num_vars;

  /// acc = element e's right-hand side. One compiled copy on the CPU (KEMPE_HD_ONE_HOST_COPY), so that the pass
  /// with the stage (EvalElementStage) gives the rhs of the pass without it bit for bit. The sums go into a
  /// local array, copied to acc at the end: summed in the caller's acc, which may alias the tables as far as
  /// the compiler knows, the elementwise stage at p = 3 took 1.3x as long (kempe_bench_dg).
  KEMPE_HD_ONE_HOST_COPY void accumulate(index_t e, Real (&acc)[nv][nm]) const {
    Real sums[nv][nm];
    volume.accumulate(e, sums);
    add_own_faces(integrals, element_faces, element_half_faces, e, sums);
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) acc[v][m] = sums[v][m];
  }

  KEMPE_HD void operator()(index_t e) const {
    const index_t k = integrals.num_elements;
    Real acc[nv][nm];
    accumulate(e, acc);
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) volume.rhs[(v * nm + m) * k + e] = acc[v][m];
  }
};

/// elementwise with the Runge-Kutta stage in the same pass: out = a x + b y + (g dt) rhs, the rhs straight from
/// EvalElement's registers, so it never goes to memory. A stage then reads the solution, x and y and writes out
/// (SSP-RK3: 8 solution-sized trips per step instead of 19 with a separate update and a copy of the start).
/// The same point function as the separate update (stage_value), with its multiply-adds explicit (backend.hpp,
/// multiply_add), so that the result is the same bit for bit (tested).
/// `out` must not be the solution the right-hand side reads (the neighbours read it); x and y may be `out`,
/// since each element reads its own values before it writes them. `step` is the clock's step size, read
/// where the kernel runs (a recorded step serves every step size).
template <int P, class Real, euler::Flux F, class Boundary>
struct EvalElementStage {
  static constexpr int block_size = EvalElement<P, Real, F, Boundary>::block_size;
  static constexpr int min_blocks_per_sm = EvalElement<P, Real, F, Boundary>::min_blocks_per_sm;
  EvalElement<P, Real, F, Boundary> element;  ///< its volume.rhs is not written
  Real a, b, g;
  const Real *x, *y, *step;
  Real* out;

  KEMPE_HD void operator()(index_t e) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
    const index_t k = element.integrals.num_elements;
    Real acc[nv][nm];
    element.accumulate(e, acc);
    const Real gdt = g * *step;
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) {
        const index_t i = (v * nm + m) * k + e;
        out[i] = stage_value(a, a != Real(0) ? x[i] : Real(0), b, b != Real(0) ? y[i] : Real(0), gdt, acc[v][m]);
      }
  }
};

}  // namespace kempe::dg
