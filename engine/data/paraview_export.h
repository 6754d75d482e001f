#pragma once
/// @file
/// ParaView time series of a run: a directory holding one VTK XML PolyData file
/// (`.vtp`, ASCII) per output frame and a `.pvd` collection that lists every
/// frame with its time. Open the `.pvd` in ParaView to play the run back.
///
/// Layout of an export to `DIR`:
/// - `DIR/<name of DIR>.pvd`: the collection, one `<DataSet timestep=".." file=".."/>` per frame;
/// - `DIR/frame_000000.vtp`, `frame_000001.vtp`, ...: one frame each (file names relative to the `.pvd`).
///
/// A frame holds, in global coordinates [m]:
/// - points: every basic point (spec().points order), then every marker (Model::markers() order),
///   then the vertices of every body's display shapes (engine/geometry/shape_mesh.h), moved with their body;
/// - vertices: the point of each particle body (a body with one point);
/// - lines: each body with two or more points as a polyline through its basic points
///   (in the order the body lists them), then each spring-damper between its two points;
/// - polys: the triangles of the display shapes;
/// - point data: `fixed` (Int32, 1 for a fixed point or a marker that cannot move, else 0)
///   and `kind` (Int32, 0 basic point, 1 marker, 2 shape vertex);
/// - cell data: `kind` (Int32, 0 body, 1 spring-damper, 2 shape triangle), `index` (Int32, index into
///   spec().bodies, or spec().springDampers for a spring) and `colour` (UInt8 x 3, red, green, blue:
///   the shape's colour, or the 3D view's for bodies and springs; untick "Map Scalars" in ParaView to see
///   it);
/// - field data: `TIME` and `TimeValue` (Float64, the frame's time [s]; `TimeValue` is
///   the name VTK's readers take as time when the `.vtp` files are opened without the `.pvd`).
/// Numbers are written with std::to_chars (shortest exact form, any locale).
///
/// Exports are atomic: the directory is built as `DIR.part` and renamed to `DIR`
/// at the end, so a failure (nothing writable there, a full disk, a cancel)
/// leaves neither `DIR` nor `DIR.part` behind, and an earlier export at `DIR`
/// stays as it was.

#include "engine/core/monitor.h"
#include "engine/dynamics/trajectory.h"
#include "engine/model/model.h"

#include <Eigen/Core>

#include <string>
#include <vector>

namespace mbdrom {

/// How to export.
struct ParaviewExportOptions {
  /// Write every stride-th sample: samples 0, stride, 2*stride, ... (>= 1).
  int stride = 1;
  /// What to do when the destination exists. true (default): replace it when it
  /// is an earlier export, i.e. a directory holding nothing but `.pvd` and `.vtp`
  /// files (or nothing at all), like re-running a simulation replaces its CSV;
  /// false: refuse any existing destination. A file, or a directory holding
  /// anything else, is always refused and left untouched.
  bool replace = true;
};

/// What an export wrote.
struct ParaviewExportResult {
  std::string directory;   ///< the export directory (the destination as given)
  std::string collection;  ///< the `.pvd` file inside it
  int frames = 0;          ///< number of `.vtp` files
  /// Shapes left out (a missing or unreadable mesh file: its body is drawn as lines only) and meshes
  /// decimated.
  std::vector<std::string> notes;
};

/// Exports a run of `model` as a ParaView time series to the directory `directory`.
///
/// t: sample times [s], size samples, finite and strictly increasing.
/// q: natural coordinates [m, -], nq x samples (one column per sample, as DatasetRun::q).
/// monitor: optional; gets one progress record per frame (stage "export ParaView")
/// and can cancel.
///
/// Throws InputError for bad input (sizes, no samples, stride < 1, times not
/// increasing, non-finite coordinates: names the sample), FileError naming the
/// destination when it exists and may not be replaced or when anything cannot be
/// created or written, and Cancelled when the monitor stops it. In every error
/// case nothing new is left on disk.
ParaviewExportResult exportParaview(const Model& model, const Eigen::VectorXd& t, const Eigen::MatrixXd& q,
                                    const std::string& directory, const ParaviewExportOptions& options = {},
                                    Monitor* monitor = nullptr);

/// The same from the samples of a simulation (e.g. a TrajectoryRecorder's); uses
/// each sample's t [s] and q [m, -].
ParaviewExportResult exportParaview(const Model& model, const std::vector<Sample>& samples,
                                    const std::string& directory, const ParaviewExportOptions& options = {},
                                    Monitor* monitor = nullptr);

}  // namespace mbdrom
