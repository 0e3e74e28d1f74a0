// VTK output (vtk_output.hpp).
#include "solver/output/vtk_output.hpp"

#include "solver/output/files.hpp"

#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCellType.h>
#include <vtkDoubleArray.h>
#include <vtkIdTypeArray.h>
#include <vtkIntArray.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkTypeInt64Array.h>
#include <vtkUnsignedCharArray.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridWriter.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace kempe::output {
namespace {

vtkNew<vtkDoubleArray> point_field(const char* name, const std::vector<double>& values, int components = 1) {
  vtkNew<vtkDoubleArray> array;
  array->SetName(name);
  array->SetNumberOfComponents(components);
  array->SetNumberOfTuples(static_cast<vtkIdType>(values.size() / components));
  for (std::size_t i = 0; i < values.size(); ++i) array->SetValue(static_cast<vtkIdType>(i), values[i]);
  return array;
}

/// Writes the grid through a temporary file and a rename (binary, zlib-compressed).
void write_grid(const std::string& path, vtkUnstructuredGrid* grid) {
  const std::string temporary = path + ".tmp";
  vtkNew<vtkXMLUnstructuredGridWriter> writer;
  writer->SetFileName(temporary.c_str());
  writer->SetInputData(grid);
  writer->SetDataModeToAppended();
  writer->EncodeAppendedDataOff();  // raw binary
  writer->SetCompressorTypeToZLib();
  // VTK would print its own report of a failed write to the terminal; ours names the file instead.
  const int warnings = vtkObject::GetGlobalWarningDisplay();
  vtkObject::SetGlobalWarningDisplay(0);
  const int written = writer->Write();
  vtkObject::SetGlobalWarningDisplay(warnings);
  if (written != 1) fail_write(temporary, path, "the VTK file");
  commit_file(temporary, path, "the VTK file");
}

}  // namespace

void write_vtu(const std::string& path, const SampledSolution& solution, const std::vector<std::string>& fields) {
  vtkNew<vtkUnstructuredGrid> grid;
  vtkNew<vtkPoints> points;
  points->SetDataTypeToDouble();
  points->SetNumberOfPoints(solution.num_points());
  for (index_t i = 0; i < solution.num_points(); ++i) points->SetPoint(i, solution.x[i], solution.y[i], 0.0);
  grid->SetPoints(points);
  const int cell_type = solution.cell_order == 1 ? VTK_TRIANGLE : VTK_LAGRANGE_TRIANGLE;
  vtkNew<vtkIdTypeArray> offsets, connectivity;
  offsets->SetNumberOfValues(solution.num_cells() + 1);
  connectivity->SetNumberOfValues(solution.num_points());
  for (index_t e = 0; e <= solution.num_cells(); ++e) offsets->SetValue(e, vtkIdType(e) * solution.points_per_cell);
  for (index_t i = 0; i < solution.num_points(); ++i) connectivity->SetValue(i, i);
  vtkNew<vtkCellArray> cells;
  cells->SetData(offsets, connectivity);
  grid->SetCells(cell_type, cells);

  vtkPointData* point_data = grid->GetPointData();
  const std::pair<const char*, const std::vector<double>*> all[] = {{"density", &solution.density},
                                                                   {"velocity", &solution.velocity},
                                                                   {"pressure", &solution.pressure},
                                                                   {"mach", &solution.mach},
                                                                   {"entropy", &solution.entropy}};
  for (const auto& [name, values] : all) {
    if (!fields.empty() && std::find(fields.begin(), fields.end(), name) == fields.end()) continue;
    point_data->AddArray(point_field(name, *values, values == &solution.velocity ? 3 : 1));
    if (point_data->GetScalars() == nullptr && values != &solution.velocity) point_data->SetActiveScalars(name);
    if (values == &solution.velocity) point_data->SetActiveVectors(name);
  }
  // The exact solution, where the run compares with one (output.exact): whatever `fields` says.
  if (!solution.exact_density.empty()) {
    point_data->AddArray(point_field("exact_density", solution.exact_density, 1));
    point_data->AddArray(point_field("exact_velocity", solution.exact_velocity, 3));
    point_data->AddArray(point_field("exact_pressure", solution.exact_pressure, 1));
  }
  vtkNew<vtkTypeInt64Array> element_id;
  element_id->SetName("element_id");
  element_id->SetNumberOfValues(solution.num_cells());
  vtkNew<vtkUnsignedCharArray> limited;
  limited->SetName("limited");
  limited->SetNumberOfValues(solution.num_cells());
  for (index_t e = 0; e < solution.num_cells(); ++e) {
    element_id->SetValue(e, solution.element_id[e]);
    limited->SetValue(e, solution.limited[e]);
  }
  grid->GetCellData()->AddArray(element_id);
  grid->GetCellData()->AddArray(limited);
  if (!solution.level.empty()) {  // an adapted mesh: each leaf's refinement level
    vtkNew<vtkUnsignedCharArray> level;
    level->SetName("level");
    level->SetNumberOfValues(solution.num_cells());
    for (index_t e = 0; e < solution.num_cells(); ++e) level->SetValue(e, solution.level[e]);
    grid->GetCellData()->AddArray(level);
  }
  if (!solution.blending.empty()) {  // subcell shock capturing: where, and how much, finite volumes act
    vtkNew<vtkDoubleArray> blending;
    blending->SetName("blending");
    blending->SetNumberOfValues(solution.num_cells());
    for (index_t e = 0; e < solution.num_cells(); ++e) blending->SetValue(e, solution.blending[e]);
    grid->GetCellData()->AddArray(blending);
  }
  // The time travels in the file too (field data TimeValue), for readers that open a single .vtu.
  vtkNew<vtkDoubleArray> time;
  time->SetName("TimeValue");
  time->InsertNextValue(solution.time);
  grid->GetFieldData()->AddArray(time);

  write_grid(path, grid);
}

void write_face_colors(const std::string& path, const Mesh& mesh) {
  vtkNew<vtkUnstructuredGrid> grid;
  vtkNew<vtkPoints> points;
  points->SetDataTypeToDouble();
  points->SetNumberOfPoints(mesh.num_nodes());
  for (index_t i = 0; i < mesh.num_nodes(); ++i) points->SetPoint(i, mesh.x[i], mesh.y[i], mesh.z[i]);
  grid->SetPoints(points);
  grid->Allocate(mesh.num_faces());
  vtkNew<vtkIntArray> color, boundary, face;
  color->SetName("color");
  boundary->SetName("boundary");
  face->SetName("face");
  for (index_t f = 0; f < mesh.num_faces(); ++f) {
    const int n = mesh.face_num_vertices[f];
    vtkIdType ids[max_face_vertices];
    for (int k = 0; k < n; ++k) ids[k] = mesh.face_vertices[std::size_t(f) * max_face_vertices + k];
    grid->InsertNextCell(n == 2 ? VTK_LINE : n == 3 ? VTK_TRIANGLE : VTK_QUAD, n, ids);
    color->InsertNextValue(mesh.face_color.empty() ? -1 : mesh.face_color[f]);
    boundary->InsertNextValue(mesh.face_boundary[f]);
    face->InsertNextValue(f);
  }
  grid->GetCellData()->AddArray(color);
  grid->GetCellData()->AddArray(boundary);
  grid->GetCellData()->AddArray(face);
  grid->GetCellData()->SetActiveScalars("color");
  write_grid(path, grid);
}

void write_adapted_mesh(const std::string& directory, const adapt::LeafMesh& mesh) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) throw std::runtime_error(directory + ": cannot create the directory (" + error.message() + ")");
  vtkNew<vtkPoints> points;
  points->SetDataTypeToDouble();
  points->SetNumberOfPoints(vtkIdType(mesh.x.size()));
  for (std::size_t i = 0; i < mesh.x.size(); ++i) points->SetPoint(vtkIdType(i), mesh.x[i], mesh.y[i], mesh.z[i]);
  {
    vtkNew<vtkUnstructuredGrid> grid;
    grid->SetPoints(points);
    grid->Allocate(mesh.num_elements());
    vtkNew<vtkIntArray> level, element;
    level->SetName("level");
    element->SetName("element");
    for (index_t e = 0; e < mesh.num_elements(); ++e) {
      const vtkIdType ids[3] = {mesh.element_vertices[3 * e], mesh.element_vertices[3 * e + 1], mesh.element_vertices[3 * e + 2]};
      grid->InsertNextCell(VTK_TRIANGLE, 3, ids);
      level->InsertNextValue(mesh.level[e]);
      element->InsertNextValue(e);
    }
    grid->GetCellData()->AddArray(level);
    grid->GetCellData()->AddArray(element);
    grid->GetCellData()->SetActiveScalars("level");
    write_grid(directory + "/elements.vtu", grid);
  }
  vtkNew<vtkUnstructuredGrid> grid;
  grid->SetPoints(points);
  grid->Allocate(mesh.num_faces());
  vtkNew<vtkIntArray> color, left, right, boundary;
  color->SetName("color");
  left->SetName("left");
  right->SetName("right");
  boundary->SetName("boundary");
  for (index_t f = 0; f < mesh.num_faces(); ++f) {
    const vtkIdType ids[2] = {mesh.face_vertices[2 * f], mesh.face_vertices[2 * f + 1]};
    grid->InsertNextCell(VTK_LINE, 2, ids);
    color->InsertNextValue(mesh.face_color[f]);
    left->InsertNextValue(mesh.face_left[f]);
    right->InsertNextValue(mesh.face_right[f]);
    boundary->InsertNextValue(mesh.face_boundary[f]);
  }
  for (vtkIntArray* a : {color.Get(), left.Get(), right.Get(), boundary.Get()}) grid->GetCellData()->AddArray(a);
  grid->GetCellData()->SetActiveScalars("color");
  write_grid(directory + "/faces.vtu", grid);
}

namespace {

/// `text` with XML's special characters escaped (a case file's name can hold any of them).
std::string xml_escaped(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += ch;
    }
  }
  return out;
}

}  // namespace

void PvdCollection::add(double time, const std::string& file) {
  entries_.emplace_back(time, file);
  std::ostringstream xml;
  xml << "<?xml version=\"1.0\"?>\n"
         "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n  <Collection>\n";
  for (const auto& [t, name] : entries_) {
    char time_text[32];  // the shortest text that reads back as the same double
    const auto end = std::to_chars(time_text, time_text + sizeof time_text, t).ptr;
    xml << "    <DataSet timestep=\"" << std::string(time_text, end) << "\" group=\"\" part=\"0\" file=\""
        << xml_escaped(name) << "\"/>\n";
  }
  xml << "  </Collection>\n</VTKFile>\n";
  write_file_atomically(path_, xml.str(), "the collection");
}

}  // namespace kempe::output
