// Where the double Mach reflection's fronts are in an output file (a .vtu written by `kempe run`): the Mach stem
// on the wall and the triple point, measured the same way on any mesh, so that two runs (an adaptive one and the
// uniform mesh its finest level equals) can be compared to within a cell. bench/dmr_amr.sh runs it.
//
// Usage: kempe_dmr_fronts FILE.vtu BAND [THRESHOLD]
//   BAND: the height of the horizontal bands the domain is cut into (the finest cells' size);
//   THRESHOLD: the density that marks a front (default 4.7, halfway between the undisturbed 1.4 and the 8 behind
//   the incident shock).
// Per cell: the centroid and the mean density of its points (the cell average where the solution is linear).
// The shock front in each band is the largest centroid x of a cell denser than THRESHOLD. The Mach stem is the
// front in the band on the wall. Above the triple point the front is the undisturbed incident shock, whose exact
// position is x = 1/6 + (y + 20 t) / sqrt(3); below it the Mach stem runs ahead of that line. The triple point is
// the lowest band from which the front stays within 2 BAND of the incident shock up to the top: its y is the
// band's centre and its x the front there.
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkFieldData.h>
#include <vtkIdList.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridReader.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_args.hpp"

namespace {

constexpr const char* usage =
    "usage: kempe_dmr_fronts FILE.vtu BAND [THRESHOLD]\n"
    "  BAND: the bands' height, above 1e-6 and at most 1 (the finest cells' size); THRESHOLD: the density that marks a front,\n"
    "  above 1.4 (default 4.7)\n";

int fronts_main(int argc, char** argv) {
  if (argc < 3 || argc > 4) throw kempe::bench::UsageError("expected two or three arguments");
  const std::string file = argv[1];
  const double band = kempe::bench::number_argument(argv[2], "BAND", 1e-6, 1.0);
  const double threshold = argc > 3 ? kempe::bench::number_argument(argv[3], "THRESHOLD", 1.4, 1e6) : 4.7;
  if (!std::filesystem::is_regular_file(file)) {
    std::fprintf(stderr, "kempe_dmr_fronts: %s: no such file\n", file.c_str());
    return 1;
  }
  vtkNew<vtkXMLUnstructuredGridReader> reader;
  reader->SetFileName(file.c_str());
  reader->Update();
  vtkUnstructuredGrid* grid = reader->GetOutput();
  vtkDataArray* density = grid->GetPointData()->GetArray("density");
  vtkDataArray* time = grid->GetFieldData()->GetArray("TimeValue");
  if (grid->GetNumberOfCells() == 0 || density == nullptr || time == nullptr) {
    std::fprintf(stderr, "kempe_dmr_fronts: %s: expected cells, a point field `density` and the field TimeValue\n", file.c_str());
    return 1;
  }
  const double t = time->GetTuple1(0);
  const int bands = int(std::ceil(1.0 / band));
  std::vector<double> front(bands, -1.0);
  vtkNew<vtkIdList> ids;
  for (vtkIdType c = 0; c < grid->GetNumberOfCells(); ++c) {
    grid->GetCellPoints(c, ids);
    double x = 0, y = 0, rho = 0;
    for (vtkIdType i = 0; i < ids->GetNumberOfIds(); ++i) {
      double p[3];
      grid->GetPoint(ids->GetId(i), p);
      x += p[0], y += p[1], rho += density->GetTuple1(ids->GetId(i));
    }
    const double n = double(ids->GetNumberOfIds());
    x /= n, y /= n, rho /= n;
    const int b = std::min(bands - 1, std::max(0, int(y / band)));
    if (rho > threshold && x > front[b]) front[b] = x;
  }
  auto incident = [&](double y) { return 1.0 / 6.0 + (y + 20 * t) / std::sqrt(3.0); };
  int triple = bands;
  for (int b = bands - 1; b >= 0; --b) {
    const double y = (b + 0.5) * band;
    if (front[b] < 0 || std::abs(front[b] - incident(y)) > 2 * band) break;
    triple = b;
  }
  if (triple == bands || triple == 0) {
    std::fprintf(stderr, "kempe_dmr_fronts: %s: no triple point found (t = %g): is this the double Mach reflection?\n", file.c_str(), t);
    return 1;
  }
  std::printf("t %.6g band %.6g threshold %.6g mach_stem_x %.6f triple_point_x %.6f triple_point_y %.6f cells %lld\n", t, band,
              threshold, front[0], front[triple], (triple + 0.5) * band, static_cast<long long>(grid->GetNumberOfCells()));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return kempe::bench::run_main("kempe_dmr_fronts", usage, argc, argv, [&] { return fronts_main(argc, argv); });
}
