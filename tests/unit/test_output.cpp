// Output files: VTK's node order, the sampled fields against the solver's own solution, and the .vtu/.pvd
// files read back through VTK's readers (cell types, point counts, field values), written atomically.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkIdList.h>
#include <vtkLagrangeTriangle.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridReader.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "dg_cases.hpp"
#include "kernels/subcell.hpp"
#include "solver/output/output.hpp"
#include "solver/output/vtk_output.hpp"

namespace kempe {
namespace {

using ::testing::HasSubstr;
using test::gamma_air;

/// Conserved variables that are polynomials of degree 2 in x and y: the order-2 projection reproduces them,
/// so the sampled density must equal rho(x, y) and the pressure the one computed from these values.
void quadratic_state(double x, double y, double* u) {
  u[euler::density] = 1 + 0.1 * x + 0.05 * y * y;
  u[euler::momentum_x] = 0.2 + 0.01 * x * y;
  u[euler::momentum_y] = 0.1 * x;
  u[euler::energy] = 2.5 + 0.1 * x * y;
}

std::string temporary_folder(const char* name) {
  const std::string folder = (std::filesystem::temp_directory_path() / name).string();
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

vtkSmartPointer<vtkUnstructuredGrid> read_vtu(const std::string& path) {
  vtkNew<vtkXMLUnstructuredGridReader> reader;
  reader->SetFileName(path.c_str());
  reader->Update();
  return reader->GetOutput();
}

TEST(Output, LagrangeNodesFollowVtkOrder) {
  for (int n = 2; n <= 5; ++n) {
    const auto lattice = output::lagrange_triangle_lattice(n);
    vtkNew<vtkLagrangeTriangle> cell;
    const auto count = static_cast<vtkIdType>(lattice.size());
    ASSERT_EQ(count, (n + 1) * (n + 2) / 2);
    cell->GetPointIds()->SetNumberOfIds(count);
    cell->GetPoints()->SetNumberOfPoints(count);
    cell->Initialize();
    const double* parametric = cell->GetParametricCoords();  // (r, s, 0) in [0, 1] per node
    for (vtkIdType i = 0; i < count; ++i) {
      EXPECT_NEAR(parametric[3 * i] * n, lattice[i][0], 1e-12) << "order " << n << " node " << i;
      EXPECT_NEAR(parametric[3 * i + 1] * n, lattice[i][1], 1e-12) << "order " << n << " node " << i;
    }
  }
}

TEST(Output, VtuReadsBackWithTheSolversValues) {
  const Mesh mesh = test::solver_mesh(6, 1.0, 0.2);
  const std::string folder = temporary_folder("kempe_output_test");
  for (const int order : {1, 2, 3}) {
    std::vector<double> c;
    auto solve = [&](auto p_constant) {
      constexpr int P = decltype(p_constant)::value;
      dg::EulerDG<P, double, euler::Flux::hllc, test::FixedState> solver(mesh, gamma_air, test::FixedState{},
                                                                        dg::Strategy::colored);
      solver.project(quadratic_state);
      c = solver.solution();
    };
    if (order == 1) solve(std::integral_constant<int, 1>{});
    if (order == 2) solve(std::integral_constant<int, 2>{});
    if (order == 3) solve(std::integral_constant<int, 3>{});
    output::SampledSolution sampled = output::sample_solution(mesh, order, gamma_air, c, {}, 0.25);
    // Subcell shock capturing's shares, written as they are given (here at p = 2 only: absent when empty).
    if (order == 2)
      for (index_t e = 0; e < mesh.num_elements(); ++e) sampled.blending.push_back(double(e % 7) / 8);
    const std::string path = folder + "/p" + std::to_string(order) + ".vtu";
    output::write_vtu(path, sampled);
    const auto grid = read_vtu(path);
    ASSERT_EQ(grid->GetNumberOfCells(), mesh.num_elements()) << "p = " << order;
    const int per_cell = order <= 1 ? 3 : (order + 1) * (order + 2) / 2;
    ASSERT_EQ(grid->GetNumberOfPoints(), vtkIdType(mesh.num_elements()) * per_cell);
    EXPECT_EQ(grid->GetCellType(0), order <= 1 ? VTK_TRIANGLE : VTK_LAGRANGE_TRIANGLE);
    vtkDataArray* density = grid->GetPointData()->GetArray("density");
    vtkDataArray* pressure = grid->GetPointData()->GetArray("pressure");
    vtkDataArray* velocity = grid->GetPointData()->GetArray("velocity");
    ASSERT_NE(density, nullptr);
    ASSERT_NE(pressure, nullptr);
    ASSERT_NE(velocity, nullptr);
    ASSERT_NE(grid->GetPointData()->GetArray("mach"), nullptr);
    ASSERT_NE(grid->GetPointData()->GetArray("entropy"), nullptr);
    EXPECT_EQ(velocity->GetNumberOfComponents(), 3);
    double worst = 0;
    for (vtkIdType i = 0; i < grid->GetNumberOfPoints(); ++i) {
      double point[3];
      grid->GetPoint(i, point);
      double u[euler::num_vars];
      quadratic_state(point[0], point[1], u);
      if (order >= 2) {  // the projection is exact: the file holds the state itself at its nodes
        worst = std::max(worst, std::abs(density->GetTuple1(i) - u[euler::density]));
        worst = std::max(worst, std::abs(pressure->GetTuple1(i) - euler::pressure(u, gamma_air)));
        worst = std::max(worst, std::abs(velocity->GetComponent(i, 1) - u[euler::momentum_y] / u[euler::density]));
      }
      EXPECT_EQ(density->GetTuple1(i), sampled.density[i]);  // what was sampled is what is read
    }
    EXPECT_LT(worst, 1e-12) << "p = " << order;
    // Cell fields: the element's number in the mesh file, and no limiting.
    vtkDataArray* id = grid->GetCellData()->GetArray("element_id");
    ASSERT_NE(id, nullptr);
    for (index_t e = 0; e < mesh.num_elements(); ++e) EXPECT_EQ(id->GetTuple1(e), double(mesh.element_tag[e]));
    ASSERT_NE(grid->GetCellData()->GetArray("limited"), nullptr);
    vtkDataArray* blending = grid->GetCellData()->GetArray("blending");
    if (order != 2) {
      EXPECT_EQ(blending, nullptr) << "p = " << order;
      continue;
    }
    ASSERT_NE(blending, nullptr);
    for (index_t e = 0; e < mesh.num_elements(); ++e) EXPECT_EQ(blending->GetTuple1(e), double(e % 7) / 8);
  }
}

TEST(Output, ExactSolutionIsWrittenBesideTheSolution) {
  // output.exact: the exact state at every output point, as fields the plots read (scripts/plot_riemann.py).
  const Mesh mesh = test::solver_mesh(3, 1.0, 0.2);
  const std::vector<double> c(std::size_t(euler::num_vars) * 3 * mesh.num_elements(), 0.5);  // p = 1: 3 modes
  output::SampledSolution sampled = output::sample_solution(mesh, 1, gamma_air, c, {}, 0.1);
  EXPECT_TRUE(sampled.exact_density.empty());
  output::add_exact_solution(sampled, gamma_air, quadratic_state);
  const std::string path = temporary_folder("kempe_exact_test") + "/exact.vtu";
  output::write_vtu(path, sampled, {"density"});  // written whatever output.fields says
  const auto grid = read_vtu(path);
  vtkDataArray* density = grid->GetPointData()->GetArray("exact_density");
  vtkDataArray* pressure = grid->GetPointData()->GetArray("exact_pressure");
  vtkDataArray* velocity = grid->GetPointData()->GetArray("exact_velocity");
  ASSERT_NE(density, nullptr);
  ASSERT_NE(pressure, nullptr);
  ASSERT_NE(velocity, nullptr);
  EXPECT_EQ(grid->GetPointData()->GetArray("pressure"), nullptr);
  for (vtkIdType i = 0; i < grid->GetNumberOfPoints(); ++i) {
    double point[3], u[euler::num_vars];
    grid->GetPoint(i, point);
    quadratic_state(point[0], point[1], u);
    EXPECT_DOUBLE_EQ(density->GetTuple1(i), u[euler::density]);
    EXPECT_DOUBLE_EQ(pressure->GetTuple1(i), euler::pressure(u, gamma_air));
    EXPECT_DOUBLE_EQ(velocity->GetComponent(i, 0), u[euler::momentum_x] / u[euler::density]);
    EXPECT_DOUBLE_EQ(velocity->GetComponent(i, 1), u[euler::momentum_y] / u[euler::density]);
  }
}

TEST(Output, PvdListsEveryOutputWithItsTime) {
  const std::string folder = temporary_folder("kempe_pvd_test");
  output::PvdCollection pvd(folder + "/run.pvd");
  pvd.add(0, "run_0000.vtu");
  pvd.add(0.5, "run_0001.vtu");
  std::ifstream in(folder + "/run.pvd");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("<DataSet timestep=\"0\" group=\"\" part=\"0\" file=\"run_0000.vtu\"/>"));
  EXPECT_THAT(text.str(), HasSubstr("<DataSet timestep=\"0.5\" group=\"\" part=\"0\" file=\"run_0001.vtu\"/>"));
  EXPECT_FALSE(std::filesystem::exists(folder + "/run.pvd.tmp"));
}

TEST(Output, FailedWriteNamesTheFileAndKeepsTheOldOne) {
  const Mesh mesh = test::solver_mesh(2, 1.0, 0.0);
  std::vector<double> c(std::size_t(euler::num_vars) * 3 * mesh.num_elements(), 0.0);
  for (index_t e = 0; e < mesh.num_elements(); ++e) {
    c[std::size_t(euler::density) * 3 * mesh.num_elements() + e] = std::sqrt(2.0);  // mode 0 is 1 / sqrt(2)
    c[std::size_t(euler::energy) * 3 * mesh.num_elements() + e] = 2.5 * std::sqrt(2.0);
  }
  const output::SampledSolution sampled = output::sample_solution(mesh, 1, gamma_air, c, {}, 0);
  const std::string folder = temporary_folder("kempe_failed_write_test");
  const std::string path = folder + "/old.vtu";
  output::write_vtu(path, sampled);
  const auto old_size = std::filesystem::file_size(path);
  std::filesystem::create_directory(path + ".tmp");  // the temporary name cannot be opened as a file
  try {
    output::write_vtu(path, sampled);
    ADD_FAILURE() << "writing over a blocked temporary file succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr(path + ": cannot write"));
  }
  EXPECT_EQ(std::filesystem::file_size(path), old_size);
  EXPECT_EQ(read_vtu(path)->GetNumberOfCells(), mesh.num_elements());
  try {
    output::write_vtu(folder + "/no/such/folder/x.vtu", sampled);
    ADD_FAILURE() << "writing into a missing folder succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("no/such/folder/x.vtu: cannot write"));
  }
}

TEST(Output, SampleRejectsTheWrongNumberOfCoefficients) {
  const Mesh mesh = test::solver_mesh(2, 1.0, 0.0);
  EXPECT_THROW(output::sample_solution(mesh, 2, gamma_air, std::vector<double>(7), {}, 0), std::invalid_argument);
  const std::vector<double> c(std::size_t(euler::num_vars) * basis::num_modes(2) * mesh.num_elements(), 1.0);
  EXPECT_THROW(output::sample_solution(mesh, 2, gamma_air, c, {}, 0, std::vector<std::uint8_t>(3, 1)), std::invalid_argument);
}

TEST(Output, ElementsUnderSubcellBoundsShowThePolynomialWithinTheirNeighbourhoodsRange) {
  // Flagged elements show at each node the polynomial's state u pulled towards the average `a` of the subcell
  // centred there (found here by its centre, not by the lattice numbering the sampler uses): a + t (u - a), t in
  // [0, 1], with density, pressure and velocity within the range of the subcell averages of the element and its
  // face neighbours, t = 1 where u lies in that range and a bound reached where it does not. The others show u.
  const Mesh mesh = test::solver_mesh(3, 1.0, 0.2);
  const index_t k = mesh.num_elements();
  for (const int order : {1, 2, 3}) {
    const int nm = basis::num_modes(order);
    std::vector<double> c(std::size_t(euler::num_vars) * nm * k);
    for (std::size_t i = 0; i < c.size(); ++i) c[i] = 0.05 * std::sin(1.0 + 0.7 * double(i));
    for (index_t e = 0; e < k; ++e) {  // positive density and energy means
      c[(std::size_t(euler::density) * nm) * k + e] = 2;
      c[(std::size_t(euler::energy) * nm) * k + e] = 5;
    }
    std::vector<std::uint8_t> flags(k, 0);
    for (index_t e = 0; e < k; e += 2) flags[e] = 1;
    const output::SampledSolution plain = output::sample_solution(mesh, order, gamma_air, c, {}, 0);
    const output::SampledSolution shown = output::sample_solution(mesh, order, gamma_air, c, {}, 0, flags);
    const dg::SubcellOperators ops = dg::subcell_operators(order);
    const std::vector<std::array<int, 2>> lattice = output::lagrange_triangle_lattice(order);
    auto state = [&](index_t e, const double* phi, double* u) {
      for (int v = 0; v < euler::num_vars; ++v) {
        u[v] = 0;
        for (int m = 0; m < nm; ++m) u[v] += phi[m] * c[(std::size_t(v) * nm + m) * k + e];
      }
    };
    auto average = [&](index_t e, int cell, double* u) { state(e, &ops.average[std::size_t(cell) * nm], u); };
    // The range of density, pressure, x- and y-velocity of the subcell averages of e and its face neighbours.
    auto neighbourhood = [&](index_t e) {
      std::array<double, 8> range{1e300, -1e300, 1e300, -1e300, 1e300, -1e300, 1e300, -1e300};
      std::vector<index_t> around{e};
      for (index_t f = 0; f < mesh.num_faces(); ++f)
        if (mesh.face_right[f] != no_element && (mesh.face_left[f] == e || mesh.face_right[f] == e))
          around.push_back(mesh.face_left[f] == e ? mesh.face_right[f] : mesh.face_left[f]);
      for (const index_t n : around)
        for (int cell = 0; cell < nm; ++cell) {
          double u[euler::num_vars];
          average(n, cell, u);
          const double p = euler::pressure(u, gamma_air), vx = u[euler::momentum_x] / u[euler::density],
                       vy = u[euler::momentum_y] / u[euler::density];
          range = {std::min(range[0], u[euler::density]), std::max(range[1], u[euler::density]), std::min(range[2], p), std::max(range[3], p),
                   std::min(range[4], vx),                std::max(range[5], vx),                std::min(range[6], vy), std::max(range[7], vy)};
        }
      return range;
    };
    // Each shown quantity of u's (density, pressure, x- and y-velocity) in the order of the range's pairs.
    auto quantities = [](const double* u) {
      const double rho = u[euler::density];
      return std::array<double, 4>{rho, euler::pressure(u, gamma_air), u[euler::momentum_x] / rho, u[euler::momentum_y] / rho};
    };
    int pulled = 0, kept = 0, by_velocity = 0;
    for (index_t e = 0; e < k; ++e) {
      const std::array<double, 8> range = neighbourhood(e);
      for (std::size_t q = 0; q < lattice.size(); ++q) {
        const std::size_t i = std::size_t(e) * lattice.size() + q;
        if (flags[e] == 0) {
          EXPECT_EQ(shown.density[i], plain.density[i]) << "p = " << order << ", element " << e;
          EXPECT_EQ(shown.pressure[i], plain.pressure[i]) << "p = " << order << ", element " << e;
          EXPECT_EQ(shown.velocity[3 * i], plain.velocity[3 * i]) << "p = " << order << ", element " << e;
          continue;
        }
        const double r = -1 + 2.0 * lattice[q][0] / order, s = -1 + 2.0 * lattice[q][1] / order;
        int cell = -1;
        for (int j = 0; j < nm; ++j)
          if (std::abs(ops.cell_r[j] - r) < 1e-12 && std::abs(ops.cell_s[j] - s) < 1e-12) cell = j;
        ASSERT_GE(cell, 0) << "p = " << order << ": no subcell centred at node " << q;
        std::vector<double> phi(nm);
        for (int m = 0; m < nm; ++m) phi[m] = basis::mode(m, r, s);
        double u[euler::num_vars], a[euler::num_vars], w[euler::num_vars];
        state(e, phi.data(), u);
        average(e, cell, a);
        // The shown state, conserved again.
        const double rho = shown.density[i], vx = shown.velocity[3 * i], vy = shown.velocity[3 * i + 1];
        w[euler::density] = rho;
        w[euler::momentum_x] = rho * vx;
        w[euler::momentum_y] = rho * vy;
        w[euler::energy] = shown.pressure[i] / (gamma_air - 1) + rho * (vx * vx + vy * vy) / 2;
        int widest = 0;  // t from the variable that differs most between u and a
        for (int v = 1; v < euler::num_vars; ++v)
          if (std::abs(u[v] - a[v]) > std::abs(u[widest] - a[widest])) widest = v;
        const double t = (w[widest] - a[widest]) / (u[widest] - a[widest]);
        ASSERT_GE(t, -1e-9) << "p = " << order << ", element " << e << ", node " << q;
        ASSERT_LE(t, 1 + 1e-9) << "p = " << order << ", element " << e << ", node " << q;
        for (int v = 0; v < euler::num_vars; ++v)
          EXPECT_NEAR(w[v], a[v] + t * (u[v] - a[v]), 1e-10) << "p = " << order << ", element " << e << ", node " << q << ", variable " << v;
        const double tol = 1e-12;
        const std::array<double, 4> seen = quantities(w), polynomial = quantities(u);
        bool inside = true;
        double gap = 1e300;
        for (int j = 0; j < 4; ++j) {
          EXPECT_GE(seen[j], range[2 * j] - tol) << "p = " << order << ", element " << e << ", node " << q << ", quantity " << j;
          EXPECT_LE(seen[j], range[2 * j + 1] + tol) << "p = " << order << ", element " << e << ", node " << q << ", quantity " << j;
          inside = inside && polynomial[j] >= range[2 * j] && polynomial[j] <= range[2 * j + 1];
          gap = std::min({gap, std::abs(seen[j] - range[2 * j]), std::abs(seen[j] - range[2 * j + 1])});
        }
        if (inside) {
          ++kept;
          EXPECT_NEAR(t, 1, 1e-12) << "p = " << order << ", element " << e << ", node " << q << ": in range, yet pulled";
        } else {
          ++pulled;
          // Pulled no further than needed: a bound is reached (to the bisection's 2^-40 of the segment).
          EXPECT_LT(gap, 1e-9) << "p = " << order << ", element " << e << ", node " << q << ": pulled further than needed";
          const bool velocity_only = polynomial[0] >= range[0] && polynomial[0] <= range[1] && polynomial[1] >= range[2] && polynomial[1] <= range[3];
          if (velocity_only) ++by_velocity;
        }
      }
    }
    EXPECT_GT(pulled, 0) << "p = " << order;  // the test meets both cases
    EXPECT_GT(kept, 0) << "p = " << order;
    EXPECT_GT(by_velocity, 0) << "p = " << order;  // and nodes that velocity alone pulls
  }
}

}  // namespace
}  // namespace kempe
