// The DG solver's mesh tables: everything the kernels read that comes from the mesh (element geometry, face
// connectivity and geometry, the slope limiters' neighbour and vertex tables), in the kernels' precision and in
// one backend's memory. They are apart from the solver's state (solver/numerics/euler_dg.hpp) because they change
// when the mesh does: rebuild() replaces them all, and the kernels see them only through View. They come from a
// Mesh (computed on the host, then placed on the backend) or from an adaptive forest's leaf mesh (built by
// kernels in the backend's memory, adapt/dg_tables.hpp, so that nothing crosses to the host after an
// adaptation); on a conforming mesh both give the same tables bit for bit.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "adapt/dg_tables.hpp"
#include "base/csr.hpp"
#include "base/types.hpp"
#include "kernels/backend.hpp"
#include "kernels/buffer.hpp"
#include "kernels/dg_K.hpp"
#include "kernels/triangle.hpp"
#include "mesh/boundary_curve.hpp"
#include "mesh/element.hpp"
#include "mesh/mesh.hpp"

namespace kempe::dg {

template <class Real>
class DGMesh {
 public:
  /// The kernels' view of the tables, in the backend's memory. [elements][3] tables list an element's vertices
  /// or faces in its local order.
  struct View {
    Geometry<Real> geometry{};
    Faces<Real> faces{};                       ///< bend is null: EulerDG sets it (curved boundaries on or off)
    const Real* boundary_bend = nullptr;        ///< [faces][3], null where every boundary is straight
    const index_t* element_faces = nullptr;     ///< [elements][3]
    const index_t* element_vertices = nullptr;  ///< [elements][3]
    const index_t *vertex_element_begin = nullptr, *vertex_elements = nullptr;  ///< [vertices + 1], CSR lists
    const index_t* element_neighbors = nullptr;  ///< [elements][3], no_element on the boundary
    const Real *inradius = nullptr, *circumradius = nullptr;  ///< [elements]
    /// [elements][3]: centroid to each vertex, and to the neighbour's centroid across each face
    const Real *vertex_dx = nullptr, *vertex_dy = nullptr, *neighbor_dx = nullptr, *neighbor_dy = nullptr;
    /// Hanging faces of an adapted mesh (null for tables from a Mesh, which is conforming; the part of each
    /// side's edge a face covers is in faces.left_half and faces.right_half): across an element's split edge
    /// the second half's face, neighbour and offset (the first half's are in the tables above; no_element and
    /// 0 where the edge is whole).
    const index_t *element_half_faces = nullptr, *element_half_neighbors = nullptr;  ///< [elements][3]
    const Real *half_neighbor_dx = nullptr, *half_neighbor_dy = nullptr;             ///< [elements][3]
  };

  /// The tables only one limiter reads, which a rebuild from a forest may leave out (their View pointers are
  /// then null): the offsets to the neighbours' centroids (the moment limiter) and the vertex-to-element lists
  /// (the vertex limiter). Each is about a quarter of the rebuild's time, paid after every adaptation.
  struct LimiterTables {
    bool neighbor_offsets = true;
    bool vertex_elements = true;
  };

  explicit DGMesh(Backend backend) : backend_(backend) {}
  // On the CPU the view points into this object's vectors: a copy would point into the original's. A move
  // keeps the vectors' storage, and so the view.
  DGMesh(const DGMesh&) = delete;
  DGMesh& operator=(const DGMesh&) = delete;
  DGMesh(DGMesh&&) = default;
  DGMesh& operator=(DGMesh&&) = default;

  /// Computes every table of `mesh` on the host and places it on the backend, replacing the previous ones.
  /// std::invalid_argument unless the mesh holds triangles in the xy plane. On Backend::cuda it first checks
  /// that the tables and `also_needed` more bytes (the caller's arrays) fit in the device's free memory
  /// (std::runtime_error naming `what` and the sizes otherwise).
  void rebuild(const Mesh& mesh, std::size_t also_needed = 0, const std::string& what = "the DG mesh tables") {
    if (mesh.dim != 2 || mesh.space_dim != 2)
      throw std::invalid_argument(mesh.source + ": the DG solver needs a 2D mesh in the xy plane");
    for (const ElementType t : mesh.element_type)
      if (t != ElementType::triangle)
        throw std::invalid_argument(mesh.source + ": the DG solver handles triangles only, for now");
    compute(mesh);
    built_ = LimiterTables{};
    if (backend_ == Backend::cuda) check_fits(bytes() + also_needed, device_memory(), what);
    place();
  }

  /// Builds every table of the forest's current leaf mesh by kernels in the backend's memory, replacing the
  /// previous ones; only counts come to the host. The forest must live on this backend and lie in the xy
  /// plane (std::invalid_argument otherwise). The host copies (jacobian, inradius, point) are made on demand,
  /// for set-up, error norms and messages: the kernels read the tables on the backend only. `wanted` says which
  /// of the limiters' own tables to build. On Backend::cuda what must be allocated is checked as by
  /// rebuild(Mesh). On any exception the object is left empty.
  void rebuild(const adapt::TriangleForest& forest, std::size_t also_needed = 0, const std::string& what = "the DG mesh tables",
               LimiterTables wanted = {}) {
    if (forest.backend() != backend_)
      throw std::invalid_argument(forest.source() + ": the adapted mesh and the DG tables live on different backends");
    if (!forest.planar()) throw std::invalid_argument(forest.source() + ": the DG solver needs a 2D mesh in the xy plane");
    const adapt::ForestPtrs& f = forest.arrays();
    const std::size_t ne = std::size_t(f.num_elements), nf = std::size_t(forest.num_faces()), nn = std::size_t(f.num_nodes);
    adapt::DGTablePtrs<Real> t;
    // Every table with its size, listed once: visit(where its pointer goes, values, name). Run first to count
    // the bytes (checked against the device's free memory before anything is allocated), then to allocate.
    auto tables = [&](auto&& visit) {
      for (auto* p : {&t.jacobian, &t.dr_dx, &t.dr_dy, &t.ds_dx, &t.ds_dy}) visit(*p, ne, "affine maps");
      visit(t.inradius, ne, "inradii"), visit(t.circumradius, ne, "circumradii");
      visit(t.face_left, nf, "face_left"), visit(t.face_right, nf, "face_right");
      visit(t.face_left_local, nf, "face_left_local"), visit(t.face_right_local, nf, "face_right_local");
      visit(t.face_left_half, nf, "face_left_half"), visit(t.face_right_half, nf, "face_right_half");
      visit(t.face_boundary, nf, "face boundary groups");
      for (auto* p : {&t.normal_x, &t.normal_y}) visit(*p, nf, "face normals");
      visit(t.length, nf, "face lengths");
      for (auto* p : {&t.x0, &t.y0, &t.x1, &t.y1}) visit(*p, nf, "face end points");
      if (f.edge_tangent != nullptr) visit(t.bend, 3 * nf, "boundary curve angles");
      visit(t.element_faces, 3 * ne, "element faces"), visit(t.element_half_faces, 3 * ne, "element half faces");
      visit(t.element_neighbors, 3 * ne, "element neighbours");
      visit(t.element_half_neighbors, 3 * ne, "element half neighbours");
      visit(t.element_vertices, 3 * ne, "element vertices");
      for (auto* p : {&t.vertex_dx, &t.vertex_dy}) visit(*p, 3 * ne, "centroid offsets");
      // Tables left out keep their slots with no values, so that each table keeps its storage from one rebuild
      // to the next.
      const std::size_t offsets = wanted.neighbor_offsets ? 3 * ne : 0, lists = wanted.vertex_elements ? 3 * ne : 0;
      for (auto* p : {&t.neighbor_dx, &t.neighbor_dy, &t.half_neighbor_dx, &t.half_neighbor_dy}) visit(*p, offsets, "centroid offsets");
      visit(t.vertex_element_begin, wanted.vertex_elements ? nn + 1 : 0, "vertex-to-element offsets");
      visit(t.vertex_elements, lists, "vertex-to-element lists");
      visit(t.sort_keys, lists, "vertex-to-element sort keys");
    };
    // Storage kept from one rebuild to the next (grown by half again when outgrown): after each adaptation the
    // tables are rebuilt in place, with no allocation (cudaFree would wait for the device) while the mesh does
    // not outgrow them. Byte arrays may hold any of the tables (their new[] and cudaMalloc alignments suffice).
    // What must be new: the slots that grow, less what they free, and the sort's temporary storage (about the
    // keys' size again).
    std::size_t bytes = 0, growth = 0, slot = 0;
    auto capacity = [](std::size_t needed) { return needed + needed / 2 + sizeof(double); };
    tables([&](auto*& p, std::size_t n, const char*) {
      const std::size_t needed = n * sizeof(*p);
      bytes += needed;
      const std::size_t held = slot < forest_storage_.size() && forest_storage_[slot].backend() == backend_ ? forest_storage_[slot].size() : 0;
      if (held < needed) growth += capacity(needed) - held;
      ++slot;
    });
    if (wanted.vertex_elements) growth += 3 * ne * 2 * sizeof(index_t);  // the sort's temporary keys and values
    if (backend_ == Backend::cuda) check_fits(growth + also_needed, device_memory(), what);
    for (auto* v : {&color_begin_, &element_vertices_, &vertex_element_begin_, &vertex_elements_, &element_neighbors_,
                    &element_faces_, &face_left_, &face_right_})
      v->clear();
    for (auto* v : {&jacobian_, &dr_dx_, &dr_dy_, &ds_dx_, &ds_dy_, &inradius_, &circumradius_, &vertex_dx_, &vertex_dy_,
                    &neighbor_dx_, &neighbor_dy_, &normal_x_, &normal_y_, &length_, &x0_, &y0_, &x1_, &y1_, &boundary_bend_})
      v->clear();
    forest_x_ = f.x, forest_y_ = f.y, forest_corners_ = f.elem_vertices, forest_nodes_ = std::size_t(f.num_nodes);
    element_tag_.clear(), vx_.clear(), vy_.clear(), face_left_local_.clear(), face_right_local_.clear(), face_boundary_.clear();
    placed_.clear();
    view_ = View{};
    k_ = f.num_elements, nf_ = forest.num_faces(), nv_ = f.num_nodes;
    color_begin_ = forest.color_begin();
    source_ = forest.source();
    from_forest_ = true;
    try {
      slot = 0;
      tables([&](auto*& p, std::size_t n, const char* name) {
        using T = std::remove_reference_t<decltype(*p)>;
        if (slot == forest_storage_.size()) forest_storage_.emplace_back();
        RawArray<std::byte>& storage = forest_storage_[slot++];
        const std::size_t needed = n * sizeof(T);
        if (storage.size() < needed || storage.backend() != backend_) {
          storage = RawArray<std::byte>();
          storage = RawArray<std::byte>(backend_, capacity(needed), name);
        }
        p = reinterpret_cast<T*>(storage.data());
      });
      if (!wanted.neighbor_offsets) t.neighbor_dx = t.neighbor_dy = t.half_neighbor_dx = t.half_neighbor_dy = nullptr;
      if (!wanted.vertex_elements) t.vertex_element_begin = t.vertex_elements = nullptr, t.sort_keys = nullptr;
      boundary_groups_ = adapt::build_dg_tables(forest, t).boundary_groups;
    } catch (...) {
      // No half-built tables: the object is left empty, as if nothing had been built.
      k_ = nf_ = nv_ = 0, boundary_groups_ = 0, bytes_ = 0;
      color_begin_.clear();
      throw;
    }
    bytes_ = bytes - (wanted.vertex_elements ? 3 * ne * sizeof(index_t) : 0);  // the tables, without the sort's keys
    built_ = wanted;
    View& d = view_;
    d.geometry = Geometry<Real>{t.jacobian, t.dr_dx, t.dr_dy, t.ds_dx, t.ds_dy};
    d.faces.left = t.face_left, d.faces.right = t.face_right;
    d.faces.left_local = t.face_left_local, d.faces.right_local = t.face_right_local;
    d.faces.normal_x = t.normal_x, d.faces.normal_y = t.normal_y, d.faces.length = t.length;
    d.faces.x0 = t.x0, d.faces.y0 = t.y0, d.faces.x1 = t.x1, d.faces.y1 = t.y1;
    d.faces.boundary = t.face_boundary;
    d.faces.left_half = t.face_left_half, d.faces.right_half = t.face_right_half;
    d.boundary_bend = t.bend;
    d.element_faces = t.element_faces, d.element_vertices = t.element_vertices;
    d.vertex_element_begin = t.vertex_element_begin, d.vertex_elements = t.vertex_elements;
    d.element_neighbors = t.element_neighbors;
    d.inradius = t.inradius, d.circumradius = t.circumradius;
    d.vertex_dx = t.vertex_dx, d.vertex_dy = t.vertex_dy, d.neighbor_dx = t.neighbor_dx, d.neighbor_dy = t.neighbor_dy;
    d.element_half_faces = t.element_half_faces, d.element_half_neighbors = t.element_half_neighbors;
    d.half_neighbor_dx = t.half_neighbor_dx, d.half_neighbor_dy = t.half_neighbor_dy;
  }

  const View& view() const { return view_; }
  /// Which of the limiters' own tables the last rebuild made (both for tables from a Mesh).
  const LimiterTables& limiter_tables() const { return built_; }
  Backend backend() const { return backend_; }
  index_t num_elements() const { return k_; }
  index_t num_faces() const { return nf_; }
  index_t num_vertices() const { return nv_; }
  /// Bytes of the tables (in the backend's memory once placed).
  std::size_t bytes() const { return bytes_; }
  /// Faces of color c are color_begin()[c] .. color_begin()[c + 1] (empty when the mesh has no ordering).
  const std::vector<index_t>& color_begin() const { return color_begin_; }
  /// The number of boundary groups the boundary faces use (the largest group index + 1).
  std::int32_t boundary_groups() const { return boundary_groups_; }
  /// Host copies, for set-up, projection, errors and messages: the host tables of a Mesh; for tables from a
  /// forest, copies made on demand from the backend (kept until the next rebuild).
  const std::vector<Real>& jacobian() const { return from_forest_ ? forest_copy(view_.geometry.jacobian, jacobian_) : jacobian_; }
  const std::vector<Real>& inradius() const { return from_forest_ ? forest_copy(view_.inradius, inradius_) : inradius_; }
  /// The mesh file's element numbers; for an adapted mesh the leaves' positions in storage order, from 1.
  const std::vector<std::int64_t>& element_tag() const {
    if (from_forest_ && element_tag_.size() != std::size_t(k_)) {
      element_tag_.resize(k_);
      std::iota(element_tag_.begin(), element_tag_.end(), std::int64_t(1));
    }
    return element_tag_;
  }
  const std::string& source() const { return source_; }
  /// The physical point of reference point (r, s) in element e. For tables from a forest the leaves' corners
  /// are copied from the backend on the first call after a rebuild (from the forest's present arrays: call it
  /// before the forest adapts again).
  std::array<double, 2> point(index_t e, double r, double s) const {
    if (from_forest_ && vx_.size() != 3 * std::size_t(k_)) copy_forest_corners();
    const std::array<double, 3> x{vx_[3 * std::size_t(e)], vx_[3 * std::size_t(e) + 1], vx_[3 * std::size_t(e) + 2]};
    const std::array<double, 3> y{vy_[3 * std::size_t(e)], vy_[3 * std::size_t(e) + 1], vy_[3 * std::size_t(e) + 2]};
    return triangle_point(x, y, r, s);
  }

 private:
  /// vx_, vy_ from the forest's node coordinates and leaf corners (in the backend's memory).
  void copy_forest_corners() const {
    const std::size_t n3 = 3 * std::size_t(k_);
    std::vector<index_t> corners(n3);
    std::vector<double> x(forest_nodes_), y(forest_nodes_);
    if (backend_ == Backend::cpu) {
      std::copy(forest_corners_, forest_corners_ + n3, corners.begin());
      std::copy(forest_x_, forest_x_ + forest_nodes_, x.begin());
      std::copy(forest_y_, forest_y_ + forest_nodes_, y.begin());
    } else {
      copy_to_host(corners.data(), forest_corners_, n3 * sizeof(index_t), "the adapted mesh's corners");
      copy_to_host(x.data(), forest_x_, x.size() * sizeof(double), "the adapted mesh's nodes");
      copy_to_host(y.data(), forest_y_, y.size() * sizeof(double), "the adapted mesh's nodes");
    }
    vx_.resize(n3), vy_.resize(n3);
    for (std::size_t i = 0; i < n3; ++i) vx_[i] = x[corners[i]], vy_[i] = y[corners[i]];
  }
  /// `copy`, filled (once per rebuild) with the k_ values of a forest table in the backend's memory.
  const std::vector<Real>& forest_copy(const Real* table, std::vector<Real>& copy) const {
    if (copy.size() != std::size_t(k_)) {
      copy.resize(k_);
      if (backend_ == Backend::cpu)
        std::copy(table, table + k_, copy.begin());
      else
        copy_to_host(copy.data(), table, copy.size() * sizeof(Real), "DG mesh tables");
    }
    return copy;
  }

  /// The host tables of `mesh`.
  void compute(const Mesh& mesh) {
    from_forest_ = false;
    k_ = mesh.num_elements();
    nf_ = mesh.num_faces();
    nv_ = mesh.num_nodes();
    color_begin_ = mesh.color_begin;
    element_tag_ = mesh.element_tag;
    source_ = mesh.source;
    // The slope limiters' tables: each element's vertices, each mesh vertex's elements (CSR), and the
    // offsets from each element's centroid to its vertices and (across each face) to its neighbours' centroids.
    element_vertices_.resize(std::size_t(k_) * 3);
    for (index_t e = 0; e < k_; ++e)
      for (int j = 0; j < 3; ++j) element_vertices_[3 * std::size_t(e) + j] = mesh.element_vertices[mesh.element_vertex_begin[e] + j];
    Csr vertex_elements = build_csr(mesh.num_nodes(), [this](auto&& add) {
      for (index_t e = 0; e < k_; ++e)
        for (int j = 0; j < 3; ++j) add(element_vertices_[3 * std::size_t(e) + j], e);
    });
    vertex_element_begin_ = std::move(vertex_elements.begin);
    vertex_elements_ = std::move(vertex_elements.values);
    auto centroid = [&](index_t e) {
      const index_t* v = &mesh.element_vertices[mesh.element_vertex_begin[e]];
      return std::array<double, 2>{(mesh.x[v[0]] + mesh.x[v[1]] + mesh.x[v[2]]) / 3,
                                   (mesh.y[v[0]] + mesh.y[v[1]] + mesh.y[v[2]]) / 3};
    };
    // The midpoint of local face j of element e (from its vertex j to vertex j + 1).
    auto face_midpoint = [&](index_t e, int j) {
      const index_t* v = &mesh.element_vertices[mesh.element_vertex_begin[e]];
      return std::array<double, 2>{(mesh.x[v[j]] + mesh.x[v[(j + 1) % 3]]) / 2, (mesh.y[v[j]] + mesh.y[v[(j + 1) % 3]]) / 2};
    };
    for (auto* a : {&vertex_dx_, &vertex_dy_, &neighbor_dx_, &neighbor_dy_}) a->assign(std::size_t(k_) * 3, Real(0));
    element_neighbors_.assign(std::size_t(k_) * 3, no_element);
    for (index_t e = 0; e < k_; ++e) {
      const auto ce = centroid(e);
      for (int j = 0; j < 3; ++j) {
        const index_t v = element_vertices_[3 * std::size_t(e) + j];
        vertex_dx_[3 * std::size_t(e) + j] = Real(mesh.x[v] - ce[0]);
        vertex_dy_[3 * std::size_t(e) + j] = Real(mesh.y[v] - ce[1]);
      }
    }
    for (index_t f = 0; f < mesh.num_faces(); ++f) {
      const index_t l = mesh.face_left[f], r = mesh.face_right[f];
      if (r == no_element) continue;
      const int jl = mesh.face_left_local[f], jr = mesh.face_right_local[f];
      // Centroid to face midpoint on one side, then face midpoint to centroid on the other: the true offset
      // for an interior face, the translated one for a periodic face.
      const auto cl = centroid(l), cr = centroid(r), ml = face_midpoint(l, jl), mr = face_midpoint(r, jr);
      const double dx = (ml[0] - cl[0]) + (cr[0] - mr[0]), dy = (ml[1] - cl[1]) + (cr[1] - mr[1]);
      element_neighbors_[3 * std::size_t(l) + jl] = r;
      neighbor_dx_[3 * std::size_t(l) + jl] = Real(dx);
      neighbor_dy_[3 * std::size_t(l) + jl] = Real(dy);
      element_neighbors_[3 * std::size_t(r) + jr] = l;
      neighbor_dx_[3 * std::size_t(r) + jr] = Real(-dx);
      neighbor_dy_[3 * std::size_t(r) + jr] = Real(-dy);
    }
    // Element geometry.
    for (auto* a : {&jacobian_, &dr_dx_, &dr_dy_, &ds_dx_, &ds_dy_}) a->resize(k_);
    vx_.resize(std::size_t(k_) * 3);
    vy_.resize(vx_.size());
    inradius_.resize(k_);
    circumradius_.resize(k_);
    for (index_t e = 0; e < k_; ++e) {
      const index_t* v = &mesh.element_vertices[mesh.element_vertex_begin[e]];
      const std::array<double, 3> x{mesh.x[v[0]], mesh.x[v[1]], mesh.x[v[2]]}, y{mesh.y[v[0]], mesh.y[v[1]], mesh.y[v[2]]};
      const TriangleGeometry geo = triangle_geometry(x, y);
      jacobian_[e] = Real(geo.jacobian);
      dr_dx_[e] = Real(geo.dr_dx);
      dr_dy_[e] = Real(geo.dr_dy);
      ds_dx_[e] = Real(geo.ds_dx);
      ds_dy_[e] = Real(geo.ds_dy);
      for (int j = 0; j < 3; ++j) {
        vx_[3 * std::size_t(e) + j] = x[j];
        vy_[3 * std::size_t(e) + j] = y[j];
      }
      // The area from the affine map (2 J), as adapt/dg_tables_K.hpp takes it: the mesh's own area is a fan sum
      // about the centroid, equal to rounding only.
      const TriangleRadii radii = triangle_radii(x, y, 2 * geo.jacobian);
      inradius_[e] = Real(radii.inradius);
      circumradius_[e] = Real(radii.circumradius);
    }
    // Faces.
    const index_t nf = mesh.num_faces();
    auto convert = [](const std::vector<double>& v) { return std::vector<Real>(v.begin(), v.end()); };
    face_left_ = mesh.face_left;
    element_faces_ = mesh.element_faces;  // three per triangle, in local order
    face_right_ = mesh.face_right;
    face_left_local_ = mesh.face_left_local;
    face_right_local_ = mesh.face_right_local;
    face_boundary_ = mesh.face_boundary;
    normal_x_ = convert(mesh.normal_x);
    normal_y_ = convert(mesh.normal_y);
    length_ = convert(mesh.face_area);
    for (auto* a : {&x0_, &y0_, &x1_, &y1_}) a->resize(nf);
    for (index_t f = 0; f < nf; ++f) {
      // The left element's local face runs from its vertex k to vertex k + 1.
      const index_t l = mesh.face_left[f];
      const int kl = mesh.face_left_local[f];
      const index_t* v = &mesh.element_vertices[mesh.element_vertex_begin[l]];
      x0_[f] = Real(mesh.x[v[kl]]);
      y0_[f] = Real(mesh.y[v[kl]]);
      x1_[f] = Real(mesh.x[v[(kl + 1) % 3]]);
      y1_[f] = Real(mesh.y[v[(kl + 1) % 3]]);
    }
    boundary_bend_ = convert(boundary_tangent_angles(mesh));  // empty where every boundary is straight
    boundary_groups_ = 0;
    for (index_t f = 0; f < nf; ++f)
      if (face_right_[f] == no_element) boundary_groups_ = std::max(boundary_groups_, face_boundary_[f] + 1);
    bytes_ = 0;
    for_each_array([this](const auto& host, const char*, auto&) { bytes_ += host.size() * sizeof(host[0]); });
  }

  /// Every table the kernels read, listed once: visit(host vector, name, where its backend pointer goes).
  template <class Visit>
  void for_each_array(Visit&& visit) {
    View& d = view_;
    visit(jacobian_, "Jacobians", d.geometry.jacobian);
    visit(dr_dx_, "metric terms", d.geometry.dr_dx);
    visit(dr_dy_, "metric terms", d.geometry.dr_dy);
    visit(ds_dx_, "metric terms", d.geometry.ds_dx);
    visit(ds_dy_, "metric terms", d.geometry.ds_dy);
    visit(face_left_, "face_left", d.faces.left);
    visit(face_right_, "face_right", d.faces.right);
    visit(face_left_local_, "face_left_local", d.faces.left_local);
    visit(face_right_local_, "face_right_local", d.faces.right_local);
    visit(normal_x_, "face normals", d.faces.normal_x);
    visit(normal_y_, "face normals", d.faces.normal_y);
    visit(length_, "face lengths", d.faces.length);
    visit(x0_, "face end points", d.faces.x0);
    visit(y0_, "face end points", d.faces.y0);
    visit(x1_, "face end points", d.faces.x1);
    visit(y1_, "face end points", d.faces.y1);
    visit(face_boundary_, "face boundary groups", d.faces.boundary);
    if (!boundary_bend_.empty()) visit(boundary_bend_, "boundary curve angles", d.boundary_bend);
    visit(element_faces_, "element faces", d.element_faces);
    visit(inradius_, "inradii", d.inradius);
    visit(circumradius_, "circumradii", d.circumradius);
    visit(element_vertices_, "element vertices", d.element_vertices);
    visit(vertex_element_begin_, "vertex-to-element offsets", d.vertex_element_begin);
    visit(vertex_elements_, "vertex-to-element lists", d.vertex_elements);
    visit(element_neighbors_, "element neighbours", d.element_neighbors);
    visit(vertex_dx_, "vertex offsets", d.vertex_dx);
    visit(vertex_dy_, "vertex offsets", d.vertex_dy);
    visit(neighbor_dx_, "neighbour offsets", d.neighbor_dx);
    visit(neighbor_dy_, "neighbour offsets", d.neighbor_dy);
  }

  /// Points the view at the tables: the host vectors themselves on the CPU, device copies on the GPU.
  void place() {
    placed_.clear();
    forest_storage_.clear();
    view_ = View{};
    for_each_array([this](const auto& host, const char* what, auto& target) { target = placed_.place(backend_, host, what); });
  }

  Backend backend_;
  index_t k_ = 0, nf_ = 0, nv_ = 0;
  std::int32_t boundary_groups_ = 0;
  bool from_forest_ = false;
  std::string source_;
  std::vector<index_t> color_begin_;
  mutable std::vector<std::int64_t> element_tag_;  // of a forest: filled on demand
  mutable std::vector<Real> jacobian_, inradius_;  // of a forest: host copies made on demand
  std::vector<Real> dr_dx_, dr_dy_, ds_dx_, ds_dy_, circumradius_;  // [elements]
  mutable std::vector<double> vx_, vy_;  // [elements][3]; of a forest: copied on demand
  const double *forest_x_ = nullptr, *forest_y_ = nullptr;  // the forest's arrays the tables were built from
  const index_t* forest_corners_ = nullptr;
  std::size_t forest_nodes_ = 0;
  LimiterTables built_{};  // the limiters' own tables the last rebuild made
  std::vector<index_t> element_vertices_, vertex_element_begin_, vertex_elements_, element_neighbors_, element_faces_;
  std::vector<Real> vertex_dx_, vertex_dy_, neighbor_dx_, neighbor_dy_;  // [elements][3]
  std::vector<index_t> face_left_, face_right_;
  std::vector<std::int8_t> face_left_local_, face_right_local_;
  std::vector<std::int32_t> face_boundary_;
  std::vector<Real> normal_x_, normal_y_, length_, x0_, y0_, x1_, y1_;  // [faces]
  std::vector<Real> boundary_bend_;                                     // [faces][3], or empty: see Faces::bend
  std::size_t bytes_ = 0;
  View view_;
  PlacedArrays placed_;
  std::vector<RawArray<std::byte>> forest_storage_;  // the tables of rebuild(forest)
};

}  // namespace kempe::dg
