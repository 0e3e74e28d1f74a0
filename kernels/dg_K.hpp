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

#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/basis.hpp"
#include "kernels/euler.hpp"

namespace kempe::dg {

/// Points of the Witherden-Vincent rule of degree 2p + 1 (quadrature.hpp) and of the face rule (p + 1 Gauss).
constexpr int volume_points(int p) {
  constexpr int points[] = {1, 6, 7, 15, 19, 28};
  return points[p];
}
constexpr int face_points(int p) { return p + 1; }

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
};

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
};

/// How eval_surface adds its contributions: plain stores when the faces of one launch share no element (a
/// color), atomic adds when they may (all faces in one launch).
enum class Scatter { colored, atomic };

template <Scatter S, class Real>
KEMPE_HD void add_to(Real* p, Real v) {
  if constexpr (S == Scatter::atomic)
    atomic_add(p, v);
  else
    *p += v;
}

/// The volume term of element e: rhs = sum_q w_q F(u_q) . grad phi_m (overwrites rhs; eval_surface adds).
template <int P, class Real>
struct EvalVolume {
  index_t num_elements;
  Real gamma;
  const Real* c;
  Real* rhs;
  Tables<Real> t;
  Geometry<Real> g;

  KEMPE_HD void operator()(index_t e) const {
    constexpr int nm = basis::num_modes(P), nq = volume_points(P), nv = euler::num_vars;
    const index_t k = num_elements;
    Real ce[nv][nm];
    Real acc[nv][nm];
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
        for (int m = 0; m < nm; ++m) sum += ce[v][m] * t.volume_basis[q * nm + m];
        u[v] = sum;
      }
      Real fx[nv], fy[nv];
      euler::physical_flux(u, gamma, fx, fy);
      const Real w = t.volume_weight[q];
      for (int m = 0; m < nm; ++m) {
        const Real gr = t.volume_grad_r[q * nm + m], gs = t.volume_grad_s[q * nm + m];
        const Real gx = w * (gr * rx + gs * sx), gy = w * (gr * ry + gs * sy);
        for (int v = 0; v < nv; ++v) acc[v][m] += fx[v] * gx + fy[v] * gy;
      }
    }
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) rhs[(v * nm + m) * k + e] = acc[v][m];
  }
};

/// The surface term of face `first + i`: the numerical flux at the face points, subtracted from the left
/// element's rhs and added to the right one's. Boundary faces take their right state from the Boundary
/// functor: ghost(group, inside state, nx, ny, x, y, time, out).
template <int P, class Real, euler::Flux F, Scatter S, class Boundary>
struct EvalSurface {
  index_t num_elements;
  index_t first;
  Real gamma, time;
  const Real* c;
  Real* rhs;
  Tables<Real> t;
  Geometry<Real> g;
  Faces<Real> fc;
  Boundary boundary;

  KEMPE_HD void operator()(index_t i) const {
    constexpr int nm = basis::num_modes(P), nq = face_points(P), nv = euler::num_vars;
    const index_t k = num_elements, f = first + i;
    const index_t l = fc.left[f], r = fc.right[f];
    const int kl = fc.left_local[f], kr = r == no_element ? 0 : fc.right_local[f];
    const Real nx = fc.normal_x[f], ny = fc.normal_y[f];
    Real cl[nv][nm], cr[nv][nm], acc_l[nv][nm], acc_r[nv][nm];
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) {
        cl[v][m] = c[(v * nm + m) * k + l];
        cr[v][m] = r == no_element ? Real(0) : c[(v * nm + m) * k + r];
        acc_l[v][m] = acc_r[v][m] = Real(0);
      }
    for (int q = 0; q < nq; ++q) {
      const Real* bl = t.face_basis + (kl * nq + q) * nm;
      const Real* br = t.face_basis + (kr * nq + (nq - 1 - q)) * nm;  // the neighbour runs the other way
      Real ul[nv], ur[nv], flux[nv];
      for (int v = 0; v < nv; ++v) {
        Real sl = Real(0), sr = Real(0);
        for (int m = 0; m < nm; ++m) {
          sl += cl[v][m] * bl[m];
          sr += cr[v][m] * br[m];
        }
        ul[v] = sl;
        ur[v] = sr;
      }
      if (r == no_element) {
        // Face points from (x0, y0) at the reference point -1 to (x1, y1) at +1.
        const Real s = (Real(1) + t.face_abscissa[q]) / Real(2);
        const Real x = fc.x0[f] + s * (fc.x1[f] - fc.x0[f]), y = fc.y0[f] + s * (fc.y1[f] - fc.y0[f]);
        boundary(fc.boundary[f], ul, nx, ny, x, y, time, ur);
      }
      euler::numerical_flux(F, ul, ur, nx, ny, gamma, flux);
      const Real w = t.face_weight[q];
      for (int m = 0; m < nm; ++m)
        for (int v = 0; v < nv; ++v) {
          acc_l[v][m] += w * flux[v] * bl[m];
          acc_r[v][m] += w * flux[v] * br[m];
        }
    }
    const Real half_length = fc.length[f] / Real(2);
    const Real scale_l = half_length / g.jacobian[l];
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) add_to<S>(&rhs[(v * nm + m) * k + l], -scale_l * acc_l[v][m]);
    if (r != no_element) {
      const Real scale_r = half_length / g.jacobian[r];
      for (int v = 0; v < nv; ++v)
        for (int m = 0; m < nm; ++m) add_to<S>(&rhs[(v * nm + m) * k + r], scale_r * acc_r[v][m]);
    }
  }
};

}  // namespace kempe::dg
