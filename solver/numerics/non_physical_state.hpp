// The one error a run can meet after it has started: a state it cannot go on from. Its own type, so that the
// command line keeps that state for inspection (an output and a checkpoint) for this error and no other.
#pragma once

#include <stdexcept>

namespace kempe::dg {

/// The run cannot go on: a coefficient is not finite, or a cell average has a non-positive density or pressure.
/// The message names the time, the element (its number in the mesh file) and the values.
class NonPhysicalState : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace kempe::dg
