#!/usr/bin/python3
"""Renders one field of a Kempe output (.vtu, or the last data set of a .pvd) to a PNG with VTK, offscreen.

Used for the pictures of docs/cases.md, so that they come from our own VTK output. Needs Debian's python3-vtk9
(installed with libvtk9-dev) and a display: run it under xvfb-run (package xvfb) on a machine without one.

    xvfb-run -a scripts/render_case.py output/double_mach/double_mach.pvd density docs/cases/double_mach.png \
        --width 1600 --height 420
"""
import argparse
import os
import sys
import xml.etree.ElementTree as ET

import vtkmodules.vtkInteractionStyle  # noqa: F401 (registers the render window's back end)
import vtkmodules.vtkRenderingOpenGL2  # noqa: F401
from vtkmodules.vtkFiltersExtraction import vtkExtractEdges
from vtkmodules.vtkFiltersGeometry import vtkDataSetSurfaceFilter
from vtkmodules.vtkIOImage import vtkPNGWriter
from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridReader
from vtkmodules.vtkRenderingAnnotation import vtkScalarBarActor
from vtkmodules.vtkRenderingCore import (vtkActor, vtkColorTransferFunction, vtkPolyDataMapper, vtkRenderer,
                                         vtkRenderWindow, vtkWindowToImageFilter)


def last_data_set(path):
    """The .vtu itself, or the last file a .pvd lists, with its time (None when unknown)."""
    if not path.endswith(".pvd"):
        return path, None
    sets = ET.parse(path).getroot().find("Collection").findall("DataSet")
    if not sets:
        sys.exit(f"{path}: the collection lists no data set")
    last = sets[-1]
    return os.path.join(os.path.dirname(path), last.get("file")), float(last.get("timestep"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help=".vtu or .pvd written by kempe run")
    parser.add_argument("field", help="point field (density, pressure, mach, entropy) or cell field (level, element_id)")
    parser.add_argument("png", help="the picture to write")
    parser.add_argument("--width", type=int, default=1200)
    parser.add_argument("--height", type=int, default=400)
    parser.add_argument("--subdivision", type=int, default=2,
                        help="subdivisions of each high-order cell edge (Lagrange cells are curved in the field)")
    parser.add_argument("--edges", action="store_true", help="draw the cells' edges (the mesh) over the field")
    parser.add_argument("--range", type=float, nargs=2, metavar=("LOW", "HIGH"),
                        help="the color scale's ends (default: the field's range); pictures to compare share one")
    args = parser.parse_args()

    path, time = last_data_set(args.input)
    if not os.path.exists(path):
        sys.exit(f"{path}: no such file")
    reader = vtkXMLUnstructuredGridReader()
    reader.SetFileName(path)
    reader.Update()
    grid = reader.GetOutput()
    # A point field is drawn smooth; a cell field (an adaptive run's `level`) flat per cell.
    on_cells = grid.GetPointData().GetArray(args.field) is None and grid.GetCellData().GetArray(args.field) is not None
    data = grid.GetCellData() if on_cells else grid.GetPointData()
    field = data.GetArray(args.field)
    if field is None:
        names = [grid.GetPointData().GetArrayName(i) for i in range(grid.GetPointData().GetNumberOfArrays())]
        names += [grid.GetCellData().GetArrayName(i) for i in range(grid.GetCellData().GetNumberOfArrays())]
        sys.exit(f"{path}: no point or cell field '{args.field}'; fields: {', '.join(names)}")
    low, high = args.range if args.range else field.GetRange()
    if high == low:
        high = low + 1

    surface = vtkDataSetSurfaceFilter()
    surface.SetInputData(grid)
    surface.SetNonlinearSubdivisionLevel(args.subdivision)
    data.SetActiveScalars(args.field)

    colors = vtkColorTransferFunction()  # a perceptually ordered blue-white-red map, as ParaView's default
    colors.SetColorSpaceToDiverging()
    colors.AddRGBPoint(low, 0.230, 0.299, 0.754)
    colors.AddRGBPoint(high, 0.706, 0.016, 0.150)

    mapper = vtkPolyDataMapper()
    mapper.SetInputConnection(surface.GetOutputPort())
    mapper.SetLookupTable(colors)
    mapper.SetColorModeToMapScalars()  # an unsigned char field (`level`) is a value to map, not a color
    if on_cells:
        mapper.SetScalarModeToUseCellFieldData()
    else:
        mapper.SetScalarModeToUsePointFieldData()
    mapper.SelectColorArray(args.field)
    mapper.SetScalarRange(low, high)
    actor = vtkActor()
    actor.SetMapper(mapper)
    if args.edges:  # the cells' own edges (subdivision would draw its sub-edges too)
        edges = vtkExtractEdges()
        edges.SetInputData(grid)
        edge_mapper = vtkPolyDataMapper()
        edge_mapper.SetInputConnection(edges.GetOutputPort())
        edge_mapper.ScalarVisibilityOff()
        edge_actor = vtkActor()
        edge_actor.SetMapper(edge_mapper)
        edge_actor.GetProperty().SetColor(0.1, 0.1, 0.1)
        edge_actor.GetProperty().SetLineWidth(0.5)

    bar = vtkScalarBarActor()
    bar.SetLookupTable(colors)
    bar.SetTitle(args.field if time is None else f"{args.field}, t = {time:g}")
    bar.SetNumberOfLabels(5)
    bar.SetOrientationToHorizontal()
    bar.SetPosition(0.2, 0.05)
    bar.SetWidth(0.6)
    bar.SetHeight(0.9)

    bar_height = 0.18  # the color bar's strip at the bottom, as a fraction of the picture
    renderer = vtkRenderer()
    renderer.AddActor(actor)
    if args.edges:
        renderer.AddActor(edge_actor)
    renderer.SetBackground(1, 1, 1)
    renderer.SetViewport(0, bar_height, 1, 1)
    legend = vtkRenderer()
    legend.AddActor2D(bar)
    legend.SetBackground(1, 1, 1)
    legend.SetViewport(0, 0, 1, bar_height)
    bar.GetTitleTextProperty().SetColor(0, 0, 0)
    bar.GetLabelTextProperty().SetColor(0, 0, 0)
    window = vtkRenderWindow()
    window.SetOffScreenRendering(1)
    window.AddRenderer(renderer)
    window.AddRenderer(legend)
    window.SetSize(args.width, args.height)
    # A parallel view of the xy plane that fits the domain with a small margin.
    x0, x1, y0, y1, _, _ = grid.GetBounds()
    camera = renderer.GetActiveCamera()
    camera.ParallelProjectionOn()
    camera.SetFocalPoint((x0 + x1) / 2, (y0 + y1) / 2, 0)
    camera.SetPosition((x0 + x1) / 2, (y0 + y1) / 2, 10 * max(x1 - x0, y1 - y0))
    camera.SetViewUp(0, 1, 0)
    aspect = args.width / (args.height * (1 - bar_height))
    camera.SetParallelScale(1.04 * max((y1 - y0) / 2, (x1 - x0) / 2 / aspect))
    renderer.ResetCameraClippingRange()
    window.Render()

    image = vtkWindowToImageFilter()
    image.SetInput(window)
    image.Update()
    writer = vtkPNGWriter()
    writer.SetFileName(args.png)
    writer.SetInputConnection(image.GetOutputPort())
    writer.Write()
    print(f"wrote {args.png} ({args.field} of {path}, range {low:.4g} .. {high:.4g})")


if __name__ == "__main__":
    main()
