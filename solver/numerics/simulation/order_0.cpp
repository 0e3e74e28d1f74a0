// The solvers of order 0 (simulation_impl.hpp says why one file per order).
#include "solver/numerics/simulation_impl.hpp"

template std::unique_ptr<kempe::sim::Simulation> kempe::sim::make_simulation_of_order<0>(
    const kempe::Mesh&, const kempe::sim::SolverOptions&, const kempe::sim::BoundaryGroups&);
template std::unique_ptr<kempe::sim::Simulation> kempe::sim::make_simulation_of_order<0>(
    const kempe::adapt::TriangleForest&, const kempe::sim::SolverOptions&, const kempe::sim::BoundaryGroups&);
