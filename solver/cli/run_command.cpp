// `kempe run CASE.yaml`: read and check the case, load, color and order the mesh, build the solver the case
// names (sim::make_simulation), project the initial state and advance to the end time, with a progress line
// and a summary. The resolved configuration is echoed and saved in the output folder.
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "adapt/forest.hpp"
#include "base/registry.hpp"
#include "coloring/coloring.hpp"
#include "coloring/reorder.hpp"
#include "kernels/basis.hpp"
#include "kernels/boundary_K.hpp"
#include "mesh/load.hpp"
#include "solver/case/case_file.hpp"
#include "solver/case/case_schema.hpp"
#include "solver/case/case_setup.hpp"
#include "solver/output/checkpoint.hpp"
#include "solver/cli/commands.hpp"
#include "solver/output/files.hpp"
#include "solver/output/output.hpp"
#include "solver/numerics/simulation.hpp"
#if KEMPE_HAVE_VTK
#include "solver/output/vtk_output.hpp"
#endif

namespace kempe::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct RunOptions {
  std::string case_file;
  std::vector<std::string> overrides;
  std::string output;
  std::string backend;
  std::string resume;
  long stop_after = 0;  // stop as on SIGINT after this many steps of this run (0: never); for testing --resume
  bool quiet = false;
};

/// The signal that asked the run to stop (SIGINT, SIGTERM), 0 while none did.
volatile std::sig_atomic_t stop_signal = 0;
extern "C" void request_stop(int signal) { stop_signal = signal; }

/// Catches SIGINT and SIGTERM for the time loop (a checkpoint is written before stopping), then restores them.
class StopSignals {
 public:
  StopSignals() {
    stop_signal = 0;
    previous_int_ = std::signal(SIGINT, request_stop);
    previous_term_ = std::signal(SIGTERM, request_stop);
  }
  ~StopSignals() {
    std::signal(SIGINT, previous_int_);
    std::signal(SIGTERM, previous_term_);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  void (*previous_int_)(int);
  void (*previous_term_)(int);
};

/// Writes the solution at each output time: STEM_NNNN.vtu and the STEM.pvd collection in the output folder.
class OutputSeries {
 public:
  OutputSeries(std::string folder, std::string stem, std::vector<std::string> fields, bool quiet)
      : folder_(std::move(folder)), stem_(std::move(stem)), fields_(std::move(fields)), quiet_(quiet)
#if KEMPE_HAVE_VTK
        , collection_(folder_ + "/" + stem_ + ".pvd")
#endif
  {
  }
  /// Writes the simulation's present state as the next output, with `exact` beside it when given; returns its
  /// path (empty without VTK).
  std::string write(const Mesh& mesh, sim::Simulation& simulation, const output::ExactState& exact = {}) {
#if KEMPE_HAVE_VTK
    char name[64];
    std::snprintf(name, sizeof name, "_%04d.vtu", static_cast<int>(outputs_.size()));
    const std::string file = stem_ + name;
    output::SampledSolution sampled =
        output::sample_solution(mesh, simulation.options().order, simulation.options().gamma, simulation.solution(),
                                simulation.limited_cells(), simulation.time(), simulation.subcell_cells());
    if (exact) output::add_exact_solution(sampled, simulation.options().gamma, exact);
    sampled.blending = simulation.blending_cells();
    output::write_vtu(folder_ + "/" + file, sampled, fields_);
    outputs_.emplace_back(simulation.time(), file);
    collection_.add(simulation.time(), file);
    return folder_ + "/" + file;
#else
    (void)mesh;
    (void)simulation;
    (void)exact;
    if (!warned_ && !quiet_) std::printf("# note: this build has no VTK (run scripts/setup): no output files written\n");
    warned_ = true;
    return {};
#endif
  }
  /// The outputs a checkpoint recorded: the collection lists them again and numbering goes on after them.
  void restore(const std::vector<std::pair<double, std::string>>& outputs) {
#if KEMPE_HAVE_VTK
    for (const auto& [time, file] : outputs) collection_.add(time, file);
#endif
    outputs_ = outputs;
  }
  const std::vector<std::pair<double, std::string>>& outputs() const { return outputs_; }
  /// The collection file, empty when nothing was written.
  std::string collection() const {
#if KEMPE_HAVE_VTK
    return outputs_.empty() ? std::string() : collection_.path();
#else
    return {};
#endif
  }
  int count() const { return static_cast<int>(outputs_.size()); }

 private:
  std::string folder_, stem_;
  std::vector<std::string> fields_;
  bool quiet_;
  bool warned_ = false;
  std::vector<std::pair<double, std::string>> outputs_;
#if KEMPE_HAVE_VTK
  output::PvdCollection collection_;
#endif
};

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string format_duration(double s) {
  char text[32];
  if (s < 60) std::snprintf(text, sizeof text, "%.1fs", s);
  else if (s < 3600) std::snprintf(text, sizeof text, "%dm%02ds", int(s) / 60, int(s) % 60);
  else std::snprintf(text, sizeof text, "%dh%02dm", int(s) / 3600, int(s) % 3600 / 60);
  return text;
}

/// The output folder: --output, else output.directory with {case} replaced by the case file's stem.
std::string output_folder(const RunOptions& o, const cases::CaseFile& c, const std::string& stem) {
  if (!o.output.empty()) return o.output;
  std::string dir = c.text("output.directory");
  for (std::size_t at = dir.find("{case}"); at != std::string::npos; at = dir.find("{case}", at + stem.size()))
    dir.replace(at, 6, stem);
  return dir;
}

sim::SolverOptions solver_options(const cases::CaseFile& c) {
  cases::check_solver_keys(c);
  sim::SolverOptions s;
  s.order = static_cast<int>(c.integer("solver.order"));
  s.precision = sim::precision_from_name(c.text("solver.precision"));
  s.flux = euler::flux_from_name(c.text("solver.flux"));
  s.strategy = dg::strategy_from_name(c.text("solver.strategy"));
  s.backend = backend_from_name(c.text("solver.backend"));
  s.gamma = c.real("physics.gamma");
  s.limiter = dg::limiter_from_name(c.text("solver.limiter"));
  s.moment_theta = c.real("solver.moment_theta");
  s.shock_capturing = dg::shock_capturing_from_name(c.text("solver.shock_capturing"));
  s.blending_max = c.real("solver.blending_max");
  s.subcell_order = static_cast<int>(c.integer("solver.subcell_order"));
  s.subcell_bounds = c.boolean("solver.subcell_bounds");
  s.subcell_repair = c.boolean("solver.subcell_repair");
  s.subcell_repair_reach = dg::repair_reach_from_name(c.text("solver.subcell_repair_reach"));
  s.subcell_repair_edges = c.boolean("solver.subcell_repair_edges");
  s.entropy_tolerance = c.real("solver.entropy_tolerance");
  s.density_tolerance = c.real("solver.density_tolerance");
  s.troubled_cells_only = c.boolean("solver.troubled_cells_only");
  s.curved_boundaries = c.boolean("solver.curved_boundaries");
  s.positivity = c.real("solver.positivity");
  return s;
}

/// A progress line rewritten in place on a terminal, plain lines at most every 10 s otherwise.
class Progress {
 public:
  Progress(bool quiet, double start, double end)
      : quiet_(quiet), terminal_(isatty(STDOUT_FILENO) != 0), start_(start), end_(end), t0_(Clock::now()) {}
  /// `steps` in all (shown); `dof_updates` since this process started (for the rate: DOF times stages per
  /// step, summed over the steps, as the mesh may change); `elements` shown when positive (an adapted mesh).
  void update(long steps, double dof_updates, double time, double dt, index_t elements, bool force = false) {
    if (quiet_) return;
    const double wall = seconds_since(t0_);
    if (!force && wall - last_ < (terminal_ ? 0.25 : 10.0)) return;
    last_ = wall;
    const double done = end_ > start_ ? (time - start_) / (end_ - start_) : 1;
    const double eta = done > 0 ? wall * (1 - done) / done : 0;
    const double rate = wall > 0 ? dof_updates / wall : 0;
    char mesh[48] = "";
    if (elements > 0) std::snprintf(mesh, sizeof mesh, "  %lld elements", static_cast<long long>(elements));
    std::printf("%sstep %ld  t = %.6g  dt = %.3e  %5.1f%%  ETA %s  %.3g DOF/s%s%s", terminal_ ? "\r" : "", steps, time,
                dt, 100 * done, format_duration(eta).c_str(), rate, mesh, terminal_ ? "   " : "\n");
    std::fflush(stdout);
  }
  void finish() {
    if (!quiet_ && terminal_) std::printf("\n");
  }

 private:
  bool quiet_, terminal_;
  double start_, end_;
  Clock::time_point t0_;
  double last_ = -1e30;
};

/// mesh.ordering, where `auto` is the faster ordering on the case's backend: on the GPU hilbert, which keeps every
/// element-wise kernel of a step local (Table 10's double Mach run with the colored strategy 1.77 ms a step
/// against 2.93 with color_renumber on an H200, docs/benchmarks.md); on the CPU rcm, whose neighbours lie close in
/// memory on a mesh generator's triangles: a colored stage on the double Mach mesh at 180k triangles takes 0.45-0.54
/// of color_renumber's time and 0.79-0.99 of hilbert's (color_renumber wins only on structured grids, whose
/// numbering it turns into runs of consecutive elements; docs/benchmarks.md, the orderings on the CPU).
std::string case_ordering(const cases::CaseFile& c) {
  const std::string named = c.text("mesh.ordering");
  if (named != "auto") return named;
  return backend_from_name(c.text("solver.backend")) == Backend::cuda ? "hilbert" : "rcm";
}

/// The case's mesh, colored and ordered as it names (a .kmesh saved by `kempe color --save` comes colored and
/// ordered already), its periodic pairs joined and its boundary groups checked against the case.
Mesh prepare_mesh(const cases::CaseFile& c, bool quiet) {
  Mesh mesh = cases::load_case_mesh(c);
  if (mesh.color_begin.size() < 2) cases::apply_periodic(c, mesh);
  cases::check_boundaries(c, mesh);
  if (mesh.color_begin.size() >= 2) return mesh;
  ColoringOptions coloring_options;
  coloring_options.algorithm = c.text("mesh.coloring");
  coloring_options.seed = static_cast<std::uint64_t>(c.integer("mesh.seed"));
  FaceColoring coloring = color_faces(mesh, coloring_options);
  const Ordering& ordering = find_ordering(case_ordering(c));
  apply_ordering(mesh, coloring, ordering.compute(mesh, coloring));
  if (!quiet)
    std::printf("# mesh %s: %d elements, %d faces, %d colors (%s), ordering %s\n", mesh.source.c_str(),
                int(mesh.num_elements()), int(mesh.num_faces()), coloring.num_colors,
                std::string(status_name(coloring.status)).c_str(), std::string(ordering.name).c_str());
  return mesh;
}

/// One run of a case, in its steps: the set-up (configuration, output folder, mesh, solver and initial state),
/// the start (the first output, or the state of a checkpoint), the time loop with its outputs and checkpoints,
/// and the summary.
class CaseRun {
 public:
  explicit CaseRun(const RunOptions& o)
      : o_(o), c_(cases::CaseFile::load(o.case_file, overrides(o))),
        stem_(std::filesystem::path(o.case_file).stem().string()), folder_(output_folder(o, c_, stem_)),
        end_(c_.real("time.end")), series_(folder_, stem_, c_.text_list("output.fields"), o.quiet) {
    initial_ = cases::initial_state(c_);
    adapt_ = cases::adapt_settings(c_);
    std::filesystem::create_directories(folder_);
    output::write_file_atomically(folder_ + "/" + stem_ + ".resolved.yaml", c_.resolved_yaml(), "the resolved configuration");
    if (!o_.quiet) std::fputs(c_.resolved_yaml().c_str(), stdout);
    mesh_ = prepare_mesh(c_, o_.quiet);
    build_solver(!o_.resume.empty());
    read_diagnostics();
  }

  /// The first output, or with --resume the state, step count and outputs of the checkpoint.
  void start() {
    if (o_.resume.empty()) {
      write_output();
      return;
    }
    const output::Checkpoint k = output::read_checkpoint(o_.resume);
    auto refuse = [&](const std::string& what) {
      throw std::invalid_argument(o_.resume + ": cannot resume this case from the checkpoint: " + what);
    };
    if (k.order != options_.order)
      refuse("it holds order " + std::to_string(k.order) + ", the case has solver.order " + std::to_string(options_.order));
    if (k.precision != sim::precision_name(options_.precision))
      refuse("it holds precision " + k.precision + ", the case has solver.precision " + sim::precision_name(options_.precision));
    const bool adapted = !k.leaf_root.empty();
    if (k.mesh_fingerprint != output::mesh_fingerprint(mesh_) || (!adapted && k.num_elements != mesh_.num_elements()))
      refuse("it was written on another mesh or numbering (" + std::to_string(k.num_elements) + " elements; the case's mesh has " +
             std::to_string(mesh_.num_elements()) + "; same mesh file, mesh.size, mesh.coloring, mesh.seed and mesh.ordering needed; "
             "mesh.ordering auto orders for the backend, so a run resumed on another backend names its ordering)");
    if (adapted != bool(forest_))
      refuse(adapted ? "it holds an adapted mesh, and the case has no adapt.indicator"
                     : "it holds a fixed mesh, and the case adapts (adapt.indicator)");
    if (k.time > end_) refuse("its time " + std::to_string(k.time) + " is past time.end " + std::to_string(end_));
    if (adapted) {
      // The checkpoint's leaves, and a solver on them (the tables built as after any adaptation).
      forest_->refine_to(k.leaf_root, k.leaf_path, k.leaf_level, o_.resume);
      simulation_ = sim::make_simulation(*forest_, options_, groups_);
      least_elements_ = most_elements_ = 0;
      mesh_changed();
      deepest_level_ = *std::max_element(k.leaf_level.begin(), k.leaf_level.end());
    }
    simulation_->restore(k.solution, k.time);
    steps_ = static_cast<long>(k.steps);
    series_.restore(k.outputs);
    if (!o_.quiet) std::printf("# resumed from %s at t = %.6g, step %ld\n", o_.resume.c_str(), k.time, steps_);
  }

  /// Advances through every output time to the end, writing outputs and checkpoints as they fall due. Stops
  /// (ExitRequest) after a checkpoint when a signal or --stop-after asks; a non-physical state keeps its state
  /// and ends the run.
  void advance() {
    steps_at_start_ = steps_;
    next_checkpoint_ = next_checkpoint_after(simulation_->time());
    Progress progress(o_.quiet, simulation_->time(), end_);
    double dof_updates = 0;
    int chunk = 1;  // steps between progress updates, grown so that each chunk takes about 0.1 s
    const StopSignals signals;
    const Clock::time_point solve_start = Clock::now();
    for (const double wanted : cases::output_times(c_)) {
      // Times as the solver's clock holds them: a float solver lands on float(t), which may lie below t.
      const double next = simulation_->solver_time(wanted);
      if (next <= simulation_->time()) continue;  // written before the checkpoint we resumed from
      for (bool reached = false; !reached;) {
        const Clock::time_point t0 = Clock::now();
        int allowed = chunk;
        if (o_.stop_after > 0)
          allowed = static_cast<int>(std::min<long>(chunk, std::max<long>(o_.stop_after - (steps_ - steps_at_start_), 0)));
        // Adaptations fall after every adapt.interval steps of the run (counted from its first step, so that a
        // resumed run adapts where the uninterrupted one did).
        if (adapt_) allowed = static_cast<int>(std::min<long>(allowed, adapt_->interval - steps_ % adapt_->interval));
        const std::int64_t dofs = simulation_->dofs();
        int taken = 0;
        try {
          taken = simulation_->advance(wanted, integrator_, cfl_, fixed_dt_, allowed);
        } catch (const dg::NonPhysicalState& e) {
          progress.finish();
          keep_failed_state(e);
        }
        steps_ += taken;
        dof_updates += double(dofs) * stages_ * taken;
        element_steps_ += double(simulation_->num_elements()) * taken;
        reached = simulation_->time() >= next || taken < allowed;  // advance stops early only at `wanted`
        // Steps per call: doubled while a full call is quick, halved when one is slow, so that progress, signals
        // and checkpoints are looked at every 0.1 to 0.2 s.
        const double took = seconds_since(t0);
        if (taken == allowed && took < 0.1 && chunk < (1 << 20)) chunk *= 2;
        if (took > 0.2 && chunk > 1) chunk /= 2;
        progress.update(steps_, dof_updates, simulation_->time(), simulation_->last_dt(), adapt_ ? simulation_->num_elements() : 0);
        // The output of this time first, so that a checkpoint taken now lists it (resuming skips it then).
        if (reached) write_output();
        // The adaptation before a checkpoint, so that a run resumed from it goes on as the uninterrupted one.
        if (adapt_ && taken > 0 && steps_ % adapt_->interval == 0 && simulation_->time() < simulation_->solver_time(end_))
          adapt_mesh();
        if (simulation_->time() >= next_checkpoint_) {
          checkpoint(checkpoint_path());
          next_checkpoint_ = next_checkpoint_after(simulation_->time());
        }
        const bool asked = stop_signal != 0 || (o_.stop_after > 0 && steps_ - steps_at_start_ >= o_.stop_after);
        if (asked && simulation_->time() < simulation_->solver_time(end_)) {
          progress.finish();
          stop();
        }
      }
    }
    solve_seconds_ = seconds_since(solve_start);
    dof_updates_ = dof_updates;
    progress.update(steps_, dof_updates, simulation_->time(), simulation_->last_dt(), adapt_ ? simulation_->num_elements() : 0, true);
    progress.finish();
  }

  /// The closing lines: steps, times, throughput, the time per kernel and where the outputs are.
  void summarize() const {
    if (o_.quiet) return;
    std::printf("# done: t = %.6g after %ld steps; solve %s, total %s; %.3g DOF updates per second (per stage)\n",
                simulation_->time(), steps_, format_duration(solve_seconds_).c_str(),
                format_duration(seconds_since(started_)).c_str(), solve_seconds_ > 0 ? dof_updates_ / solve_seconds_ : 0.0);
    if (adapt_) {
      const double percent_per_second = solve_seconds_ > 0 ? 100 / solve_seconds_ : 0.0;
      std::printf("# adaptive mesh: %lld elements now, %lld least, %lld most; levels 0 to %d of at most %d; %ld "
                  "adaptations, %.1f%% of the solve time (flags %.1f%%, mesh %.1f%%, solution and tables %.1f%%); "
                  "%.4g element-steps\n",
                  static_cast<long long>(simulation_->num_elements()), static_cast<long long>(least_elements_),
                  static_cast<long long>(most_elements_), deepest_level_, adapt_->max_level, adaptations_,
                  percent_per_second * adapt_seconds_, percent_per_second * adapt_flags_seconds_,
                  percent_per_second * adapt_mesh_seconds_,
                  percent_per_second * (adapt_seconds_ - adapt_flags_seconds_ - adapt_mesh_seconds_), element_steps_);
    }
    // Time per kernel, measured on the final state (a run's own launches are not timed one by one: on the GPU
    // they replay as one graph per step).
    std::string line = "# time per call (mean of 5 after the run):";
    for (const sim::KernelTime& k : simulation_->profile(5)) {
      char text[96];
      std::snprintf(text, sizeof text, " %s %.3g ms;", k.name.c_str(), 1e3 * k.seconds);
      line += text;
    }
    line.back() = '\n';
    std::fputs(line.c_str(), stdout);
    std::printf("# wrote %s/%s.resolved.yaml", folder_.c_str(), stem_.c_str());
    if (!series_.collection().empty())
      std::printf(" and %d outputs: open %s in ParaView", series_.count(), series_.collection().c_str());
    std::printf("\n");
  }

 private:
  static std::vector<std::string> overrides(const RunOptions& o) {
    std::vector<std::string> all = o.overrides;
    if (!o.backend.empty()) all.push_back("solver.backend=" + o.backend);
    return all;
  }

  /// The solver the case names, on its backend, with the initial state projected; with an adapt: section on an
  /// adaptive forest of the case's mesh (a saved adapted mesh's leaves), adapted adapt.initial_levels times to the
  /// initial state (not when resuming: the checkpoint holds the mesh). A saved adapted mesh without an adapt:
  /// section is std::invalid_argument: a fixed-mesh solver would drop its refinement.
  void build_solver(bool resuming) {
    const cases::BoundaryTable table = cases::boundary_table(c_, mesh_);
    groups_ = sim::BoundaryGroups{table.kinds, table.states, table.functions};
    options_ = solver_options(c_);  // solver.backend auto: the GPU when one is present (backend_from_name)
    const bool saved_leaves = !mesh_.leaf_root.empty();  // an adapted mesh (kempe adapt --save)
    if (adapt_) {
      check_adapt_fits();
      forest_ = std::make_unique<adapt::TriangleForest>(mesh_, options_.backend, adapt_->max_level);
      // A saved adapted mesh: the run starts from its leaves (a resumed run from the checkpoint's instead).
      if (saved_leaves && !resuming) forest_->refine_to(mesh_.leaf_root, mesh_.leaf_path, mesh_.leaf_level, mesh_.source);
      simulation_ = sim::make_simulation(*forest_, options_, groups_);
      mesh_changed();
    } else {
      if (saved_leaves)
        throw std::invalid_argument(mesh_.source + ": holds an adapted mesh (kempe adapt --save); a case runs on it with an "
                                    "adapt: section (adapt.indicator), starting from its leaves; without one it would run on "
                                    "the start mesh alone");
      simulation_ = sim::make_simulation(mesh_, options_, groups_);
    }
    simulation_->project(initial_);
    for (int level = 0; adapt_ && !resuming && level < adapt_->initial_levels; ++level) {
      // The initial condition projected on the adapted mesh, not carried over: new elements see it exactly.
      if (!adapt_mesh()) break;
      simulation_->project(initial_);
    }
    least_elements_ = most_elements_ = 0;  // the statistics of the run start with its first step's mesh
    mesh_changed();
    const sim::MemoryUse memory = simulation_->memory_use();
    if (!o_.quiet)
      std::printf("# solver: order %d, %s, flux %s, strategy %s, backend %s; %lld DOF; %.1f MiB\n", options_.order,
                  sim::precision_name(options_.precision), c_.text("solver.flux").c_str(), c_.text("solver.strategy").c_str(),
                  options_.backend == Backend::cuda ? "cuda" : "cpu", static_cast<long long>(simulation_->dofs()),
                  double(memory.total()) / (1 << 20));
    if (adapt_ && !o_.quiet)
      std::printf("# adaptive mesh: indicator %s on %s, refine above %g, coarsen below %g, levels up to %d, every %d "
                  "steps, buffer of %d rings; %lld elements after %d initial adaptations\n",
                  c_.text("adapt.indicator").c_str(), c_.text("adapt.variable").c_str(), adapt_->criteria.refine_above,
                  adapt_->criteria.coarsen_below, adapt_->max_level, adapt_->interval, adapt_->criteria.buffer,
                  static_cast<long long>(simulation_->num_elements()), int(adaptations_));
    integrator_ = dg::integrator_from_name(c_.text("time.integrator"));
    cfl_ = c_.real("time.cfl");
    fixed_dt_ = c_.real("time.dt");
    stages_ = sim::stages_per_step(integrator_);
    checkpoint_interval_ = c_.real("checkpoint.interval");
  }

  /// Refuses (naming adapt.max_level) a finest level at which the start mesh refined everywhere would not fit
  /// a 32-bit element index or this machine's memory (the device's on the GPU): the run could reach it.
  void check_adapt_fits() const {
    const double most = double(mesh_.num_elements()) * std::pow(4.0, adapt_->max_level);
    // Bytes per leaf at the peak of an adaptation: the forest's (both mesh buffers, faces, scratch; measured by
    // kempe adapt), the solver's mesh tables, and the solution with the transfer target, three integrator
    // vectors and the limiter's Taylor coefficients.
    constexpr double forest_bytes = 570, table_bytes = 600;
    const double real_bytes = options_.precision == sim::Precision::float32 ? 4 : 8;
    const double per_leaf = forest_bytes + table_bytes + 6 * euler::num_vars * double(basis::num_modes(options_.order)) * real_bytes;
    const double have = options_.backend == Backend::cuda ? double(device_memory().total_bytes)
                                                          : double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
    const bool too_many = most > double(std::numeric_limits<index_t>::max());
    if (!too_many && most * per_leaf <= have) return;
    char message[400];
    std::snprintf(message, sizeof message,
                  "the %lld triangles of %s all refined to level %d make %.3g elements, %s; lower adapt.max_level or "
                  "start from a coarser mesh",
                  static_cast<long long>(mesh_.num_elements()), mesh_.source.c_str(), adapt_->max_level, most,
                  too_many ? "more than a 32-bit element index holds"
                           : ("about " + std::to_string(int(std::ceil(most * per_leaf / (1 << 30)))) + " GiB at " +
                              std::to_string(int(per_leaf)) + " bytes an element, more than the " +
                              std::to_string(int(have / (1 << 30))) + " GiB " +
                              (options_.backend == Backend::cuda ? "of the device" : "of this machine"))
                                 .c_str());
    throw std::invalid_argument(cases::key_location(c_, "adapt.max_level") + message);
  }

  /// One adaptation: the indicator's flags, the forest's refinement and coarsening (its colors checked), the
  /// solution carried over; on the GPU only counts reach the host. Returns whether the mesh changed.
  bool adapt_mesh() {
    const Clock::time_point t0 = Clock::now();
    simulation_->flag_adaptation(adapt_->criteria, *forest_);
    const Clock::time_point t1 = Clock::now();
    const adapt::AdaptReport report = forest_->adapt(adapt::Check::colors);
    const Clock::time_point t2 = Clock::now();
    if (!report.valid())
      throw std::logic_error(mesh_.source + ": an adaptation left " + std::to_string(report.failures) +
                             " faces whose colors clash (a bug: please report it with the case file)");
    const bool changed = report.refined > 0 || report.coarsened > 0;
    if (changed) {  // an unchanged mesh keeps the solver as it stands (its tables, solution and CUDA graph)
      simulation_->remesh(*forest_);
      mesh_changed();
    }
    ++adaptations_;
    deepest_level_ = std::max(deepest_level_, report.max_level);
    // On the GPU the flags' kernels may still run when adapt() starts: their time then counts in the mesh's.
    adapt_flags_seconds_ += std::chrono::duration<double>(t1 - t0).count();
    adapt_mesh_seconds_ += std::chrono::duration<double>(t2 - t1).count();
    adapt_seconds_ += seconds_since(t0);
    return changed;
  }

  /// After the solver's mesh changed: the output mesh is stale, and the element counts are seen.
  void mesh_changed() {
    output_mesh_.reset();
    const index_t k = simulation_->num_elements();
    least_elements_ = least_elements_ == 0 ? k : std::min(least_elements_, k);
    most_elements_ = std::max(most_elements_, k);
  }

  /// The mesh the solution lives on, for output and error norms: the case's mesh, or the forest's leaves
  /// (copied to the host when first asked after an adaptation).
  const Mesh& output_mesh() {
    if (!forest_) return mesh_;
    if (!output_mesh_) output_mesh_ = adapt::leaf_elements_mesh(forest_->to_host(), mesh_);
    return *output_mesh_;
  }

  /// The diagnostics printed at every output: the entropy error against output.entropy_reference, and the
  /// density error against output.exact (a named function's exact solution at the output's time).
  void read_diagnostics() {
    if (c_.has("output.entropy_reference")) {
      reference_ = c_.real_list("output.entropy_reference");
      if (!(reference_[0] > 0 && reference_[3] > 0))
        throw std::invalid_argument(c_.source() + ": output.entropy_reference: density and pressure must be positive");
    }
    compare_exact_ = c_.has("output.exact");
    if (compare_exact_) exact_ = bc::state_function_from_name(c_.text("output.exact"));
  }

  /// Writes the present state as the next output, with its diagnostics.
  void write_output() {
    const double t = simulation_->time(), gamma = options_.gamma;
    output::ExactState exact_state;  // the named function at this output's time, written beside the solution
    if (compare_exact_) exact_state = [&](double x, double y, double* u) { bc::function_state(exact_, x, y, t, gamma, u); };
    const Mesh& mesh = output_mesh();
    series_.write(mesh, *simulation_, exact_state);
    if (o_.quiet) return;
    if (!reference_.empty())
      std::printf("# t = %.6g: entropy error %.6e\n", t,
                  output::entropy_error(mesh, options_.order, gamma, simulation_->solution(), reference_[0], reference_[3]));
    if (compare_exact_) {
      const output::DensityError error = output::density_error(mesh, options_.order, simulation_->solution(), exact_state);
      std::printf("# t = %.6g: density error against %s: L1 %.6e, L2 %.6e\n", t, c_.text("output.exact").c_str(),
                  error.l1, error.l2);
    }
  }

  std::string checkpoint_path() const { return folder_ + "/" + stem_ + ".kcheck"; }

  void checkpoint(const std::string& path) {
    output::Checkpoint k;
    k.order = options_.order;
    k.precision = sim::precision_name(options_.precision);
    k.mesh_fingerprint = output::mesh_fingerprint(mesh_);  // the start mesh's, for an adapted one
    k.num_elements = simulation_->num_elements();
    if (forest_) {
      const Mesh& leaves = output_mesh();
      k.leaf_root = leaves.leaf_root, k.leaf_path = leaves.leaf_path, k.leaf_level = leaves.leaf_level;
    }
    k.time = simulation_->time();
    k.steps = steps_;
    k.outputs = series_.outputs();
    k.solution = simulation_->solution();
    output::write_checkpoint(path, k);
  }

  /// Checkpoints do not cut steps (so that a run gives the same steps with or without them): one is written
  /// after the first step that reaches each multiple of the interval.
  double next_checkpoint_after(double t) const {
    return checkpoint_interval_ > 0 ? (std::floor(t / checkpoint_interval_) + 1) * checkpoint_interval_ : HUGE_VAL;
  }

  /// The state where the failure was found, for inspection: its own checkpoint (the last periodic one, of a
  /// good state, stays) and an output; then the error, with where they are. If writing them fails too, the
  /// original error still comes.
  [[noreturn]] void keep_failed_state(const dg::NonPhysicalState& e) {
    const std::string failed_checkpoint_path = folder_ + "/" + stem_ + ".failed.kcheck";
    std::string kept;
    try {
      const std::string last = series_.write(output_mesh(), *simulation_);
      checkpoint(failed_checkpoint_path);
      kept = "; the state where it was found (t = " + std::to_string(simulation_->time()) + ") is in " +
             (last.empty() ? std::string() : last + " and ") + failed_checkpoint_path;
    } catch (const std::exception& write_error) {
      kept = std::string("; writing that state failed too: ") + write_error.what();
    }
    throw dg::NonPhysicalState(std::string(e.what()) + kept);
  }

  /// A checkpoint, then the exit a signal or --stop-after asked for.
  [[noreturn]] void stop() {
    checkpoint(checkpoint_path());
    const int code = stop_signal != 0 ? 128 + stop_signal : 130;
    std::fprintf(stderr,
                 "kempe: stopped at t = %.6g after %ld steps (%s); to continue, run the same command with "
                 "--resume %s\n",
                 simulation_->time(), steps_, stop_signal == SIGTERM ? "SIGTERM" : stop_signal ? "SIGINT" : "--stop-after",
                 checkpoint_path().c_str());
    throw ExitRequest(code);
  }

  const Clock::time_point started_ = Clock::now();
  const RunOptions& o_;
  const cases::CaseFile c_;
  const std::string stem_, folder_;
  const double end_;
  OutputSeries series_;
  Mesh mesh_;  // the case's mesh; an adapted run's start mesh
  std::function<void(double, double, double*)> initial_;
  std::optional<cases::AdaptSettings> adapt_;
  std::unique_ptr<adapt::TriangleForest> forest_;  // an adapted run's mesh
  std::optional<Mesh> output_mesh_;                // its leaves on the host, made when an output needs them
  sim::SolverOptions options_;
  sim::BoundaryGroups groups_;
  std::unique_ptr<sim::Simulation> simulation_;
  dg::Integrator integrator_{};
  double cfl_ = 0, fixed_dt_ = 0, checkpoint_interval_ = 0;
  int stages_ = 0;
  std::vector<double> reference_;  // output.entropy_reference, or empty
  bool compare_exact_ = false;
  bc::StateFunction exact_{};
  long steps_ = 0, steps_at_start_ = 0;
  double next_checkpoint_ = HUGE_VAL;
  double solve_seconds_ = 0, dof_updates_ = 0, element_steps_ = 0;
  // An adapted run's statistics.
  index_t least_elements_ = 0, most_elements_ = 0;
  int deepest_level_ = 0;
  long adaptations_ = 0;
  double adapt_seconds_ = 0;         // all of it: flags, mesh, and the solver following (transfer, tables)
  double adapt_flags_seconds_ = 0;   // the indicator, thresholds and buffer rings
  double adapt_mesh_seconds_ = 0;    // the forest's adaptation with its color check
};

void run_case(const RunOptions& o) {
  CaseRun run(o);
  run.start();
  run.advance();
  run.summarize();
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "run a case file (YAML): mesh, coloring, solver, time loop");
  cmd->add_option("CASE", o->case_file, "the case file (.yaml)");
  cmd->add_option("--set", o->overrides, "KEY=VALUE: replace a value of the file (repeatable), e.g. --set solver.order=2");
  cmd->add_option("--output", o->output, "output folder (default: the case's output.directory)");
  cmd->add_option("--backend", o->backend, "cpu, cuda or auto (the GPU when one is present); same as --set solver.backend=");
  cmd->add_option("--resume", o->resume, "continue from a checkpoint (OUTPUT/CASE.kcheck) of the same case, bit for bit");
  cmd->add_option("--stop-after", o->stop_after, "stop after this many steps of this run, as on SIGINT (a checkpoint is written)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--quiet", o->quiet, "print nothing but errors");
  auto help_config = std::make_shared<bool>(false);
  cmd->add_flag("--help-config", *help_config, "print every case-file key: type, default, allowed values, description");
  cmd->callback([o, help_config] {
    if (*help_config) {
      std::fputs(cases::reference_text().c_str(), stdout);
      return;
    }
    if (o->case_file.empty()) throw CLI::RequiredError("CASE");
    run_case(*o);
  });
}

}  // namespace kempe::cli
