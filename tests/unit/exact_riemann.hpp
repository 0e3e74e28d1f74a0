// The exact solution of the 1D Riemann problem for the Euler equations of an ideal gas (Toro, "Riemann Solvers
// and Numerical Methods for Fluid Dynamics", 3rd ed., chapter 4): the reference for the shock-tube tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace kempe::test {

struct Primitive {
  double rho, u, p;
};

class ExactRiemann {
 public:
  ExactRiemann(Primitive left, Primitive right, double gamma) : l_(left), r_(right), g_(gamma) {
    cl_ = std::sqrt(g_ * l_.p / l_.rho);
    cr_ = std::sqrt(g_ * r_.p / r_.rho);
    if (2 / (g_ - 1) * (cl_ + cr_) <= r_.u - l_.u)
      throw std::invalid_argument("exact Riemann solver: the states generate vacuum (Toro eq. 4.40)");
    solve_star();
  }

  double p_star() const { return p_star_; }
  double u_star() const { return u_star_; }
  /// Density left and right of the contact.
  double rho_star_left() const { return star_density(l_, p_star_); }
  double rho_star_right() const { return star_density(r_, p_star_); }

  /// The solution at speed xi = (x - x0) / t (Toro, section 4.5, "sampling").
  Primitive sample(double xi) const {
    const double gp = (g_ + 1) / (2 * g_), gq = (g_ - 1) / (2 * g_);
    if (xi <= u_star_) {  // left of the contact
      if (p_star_ > l_.p) {  // left shock
        const double s = l_.u - cl_ * std::sqrt(gp * p_star_ / l_.p + gq);
        return xi <= s ? l_ : Primitive{rho_star_left(), u_star_, p_star_};
      }
      const double head = l_.u - cl_, tail = u_star_ - cl_ * std::pow(p_star_ / l_.p, gq);
      if (xi <= head) return l_;
      if (xi >= tail) return {rho_star_left(), u_star_, p_star_};
      const double u = 2 / (g_ + 1) * (cl_ + (g_ - 1) / 2 * l_.u + xi);
      const double c = 2 / (g_ + 1) * (cl_ + (g_ - 1) / 2 * (l_.u - xi));
      const double rho = l_.rho * std::pow(c / cl_, 2 / (g_ - 1));
      return {rho, u, l_.p * std::pow(c / cl_, 2 * g_ / (g_ - 1))};
    }
    if (p_star_ > r_.p) {  // right shock
      const double s = r_.u + cr_ * std::sqrt(gp * p_star_ / r_.p + gq);
      return xi >= s ? r_ : Primitive{rho_star_right(), u_star_, p_star_};
    }
    const double head = r_.u + cr_, tail = u_star_ + cr_ * std::pow(p_star_ / r_.p, gq);
    if (xi >= head) return r_;
    if (xi <= tail) return {rho_star_right(), u_star_, p_star_};
    const double u = 2 / (g_ + 1) * (-cr_ + (g_ - 1) / 2 * r_.u + xi);
    const double c = 2 / (g_ + 1) * (cr_ - (g_ - 1) / 2 * (r_.u - xi));
    const double rho = r_.rho * std::pow(c / cr_, 2 / (g_ - 1));
    return {rho, u, r_.p * std::pow(c / cr_, 2 * g_ / (g_ - 1))};
  }

 private:
  /// Toro eq. 4.6-4.7: the velocity change across the K wave at star pressure p, and its derivative.
  void pressure_function(const Primitive& k, double c, double p, double& f, double& df) const {
    if (p > k.p) {  // shock
      const double a = 2 / ((g_ + 1) * k.rho), b = (g_ - 1) / (g_ + 1) * k.p;
      const double q = std::sqrt(a / (p + b));
      f = (p - k.p) * q;
      df = (1 - (p - k.p) / (2 * (b + p))) * q;
    } else {  // rarefaction
      f = 2 * c / (g_ - 1) * (std::pow(p / k.p, (g_ - 1) / (2 * g_)) - 1);
      df = std::pow(p / k.p, -(g_ + 1) / (2 * g_)) / (k.rho * c);
    }
  }
  void solve_star() {
    // Start from the two-rarefaction guess (Toro eq. 4.46), then Newton to 1e-15 relative change.
    const double z = (g_ - 1) / (2 * g_);
    double p = std::pow((cl_ + cr_ - (g_ - 1) / 2 * (r_.u - l_.u)) / (cl_ / std::pow(l_.p, z) + cr_ / std::pow(r_.p, z)), 1 / z);
    p = std::max(p, 1e-12);
    for (int iteration = 0; iteration < 100; ++iteration) {
      double fl, dfl, fr, dfr;
      pressure_function(l_, cl_, p, fl, dfl);
      pressure_function(r_, cr_, p, fr, dfr);
      const double next = std::max(p - (fl + fr + r_.u - l_.u) / (dfl + dfr), 1e-14);
      const double change = 2 * std::abs(next - p) / (next + p);
      p = next;
      if (change < 1e-15) break;
    }
    double fl, dfl, fr, dfr;
    pressure_function(l_, cl_, p, fl, dfl);
    pressure_function(r_, cr_, p, fr, dfr);
    p_star_ = p;
    u_star_ = 0.5 * (l_.u + r_.u) + 0.5 * (fr - fl);
  }
  double star_density(const Primitive& k, double p) const {
    if (p > k.p) {
      const double m = (g_ - 1) / (g_ + 1);
      return k.rho * (p / k.p + m) / (m * p / k.p + 1);
    }
    return k.rho * std::pow(p / k.p, 1 / g_);
  }

  Primitive l_, r_;
  double g_, cl_ = 0, cr_ = 0, p_star_ = 0, u_star_ = 0;
};

}  // namespace kempe::test
