#include "engine/data/paraview_export.h"

#include "engine/core/error.h"
#include "engine/core/file_io.h"
#include "engine/core/message_text.h"
#include "engine/core/number_text.h"
#include "engine/geometry/body_pose.h"
#include "engine/geometry/shape_mesh.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace mbdrom {

namespace fs = std::filesystem;

namespace {

const char* const kStage = "export ParaView";

// What a frame draws; the same for every frame, only the coordinates change.
struct Topology {
  int points = 0;                // basic points, then markers
  std::vector<int> fixed, kind;  // per point
  std::vector<int> verts;        // point of each particle body
  std::vector<std::vector<int>> lines;
  std::vector<int> cellKind, cellIndex;  // per cell: verts first, then lines, then polys (VTK's order)
  std::vector<int> cellColour;           // per cell: red, green, blue in 0..255
  ShapeParts shapes;                     // triangles in reference coordinates, drawn through BodyPoses
  std::size_t shapeVertices = 0, shapeTriangles = 0;
};

void appendColour(std::vector<int>& out, const Eigen::Vector3d& rgb) {
  for (int k = 0; k < 3; ++k)
    out.push_back(static_cast<int>(std::lround(255.0 * std::clamp(rgb[k], 0.0, 1.0))));
}

Topology topology(const Model& model) {
  const ModelSpec& spec = model.spec();
  const int nPoints = static_cast<int>(spec.points.size());
  Topology top;
  top.points = nPoints + static_cast<int>(model.markers().size());
  for (const PointSpec& p : spec.points) {
    top.fixed.push_back(p.fixed ? 1 : 0);
    top.kind.push_back(0);
  }
  for (const CompiledMarker& m : model.markers()) {
    top.fixed.push_back(m.position.isConstant() ? 1 : 0);
    top.kind.push_back(1);
  }
  auto pointIndex = [&](const std::string& name) {
    if (const int p = model.findPoint(name); p >= 0) return p;
    if (const int m = model.findMarker(name); m >= 0) return nPoints + m;
    return -1;
  };
  std::vector<int> vertBodies, lineBodies;
  for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
    std::vector<int> line;
    for (const std::string& name : spec.bodies[b].points)
      if (const int i = pointIndex(name); i >= 0) line.push_back(i);
    if (line.size() == 1) {
      top.verts.push_back(line.front());
      vertBodies.push_back(static_cast<int>(b));
    } else if (line.size() > 1) {
      top.lines.push_back(std::move(line));
      lineBodies.push_back(static_cast<int>(b));
    }
  }
  for (int b : vertBodies) {
    top.cellKind.push_back(0);
    top.cellIndex.push_back(b);
  }
  for (int b : lineBodies) {
    top.cellKind.push_back(0);
    top.cellIndex.push_back(b);
  }
  for (std::size_t s = 0; s < spec.springDampers.size(); ++s) {
    const int p1 = pointIndex(spec.springDampers[s].point1), p2 = pointIndex(spec.springDampers[s].point2);
    if (p1 < 0 || p2 < 0) continue;  // a validated model names existing points
    top.lines.push_back({p1, p2});
    top.cellKind.push_back(1);
    top.cellIndex.push_back(static_cast<int>(s));
  }
  const Eigen::Vector3d body(0.27, 0.51, 0.71), spring(0.93, 0.55, 0.15);  // as the 3D view draws them
  for (int kind : top.cellKind) appendColour(top.cellColour, kind == 0 ? body : spring);
  top.shapes = buildShapeParts(spec);
  for (const ShapePart& part : top.shapes.parts) {
    top.shapeVertices += part.mesh.vertices.size();
    top.shapeTriangles += part.mesh.triangleCount();
    for (std::size_t k = 0; k < part.mesh.triangleCount(); ++k) {
      top.cellKind.push_back(2);
      top.cellIndex.push_back(part.body);
      appendColour(top.cellColour, part.colour);
    }
  }
  for (std::size_t k = 0; k < top.shapeVertices; ++k) {
    top.fixed.push_back(0);
    top.kind.push_back(2);
  }
  return top;
}

void appendIntArray(std::string& s, const char* type, const char* name, const std::vector<int>& values,
                    int components = 1) {
  s += "        <DataArray type=\"";
  s += type;
  s += "\" Name=\"";
  s += name;
  if (components > 1) s += "\" NumberOfComponents=\"" + std::to_string(components);
  s += "\" format=\"ascii\">";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) s += ' ';
    s += std::to_string(values[i]);
  }
  s += "</DataArray>\n";
}

void appendCells(std::string& s, const char* section, const std::vector<std::vector<int>>& cells) {
  if (cells.empty()) return;
  std::vector<int> connectivity, offsets;
  for (const std::vector<int>& c : cells) {
    connectivity.insert(connectivity.end(), c.begin(), c.end());
    offsets.push_back(static_cast<int>(connectivity.size()));
  }
  s += "      <";
  s += section;
  s += ">\n";
  appendIntArray(s, "Int64", "connectivity", connectivity);
  appendIntArray(s, "Int64", "offsets", offsets);
  s += "      </";
  s += section;
  s += ">\n";
}

std::string frameText(const Model& model, const Topology& top, const BodyPoses& poses, double t,
                      const Eigen::VectorXd& q) {
  std::string s;
  s.reserve(512 + 80 * static_cast<std::size_t>(top.points));
  s += "<?xml version=\"1.0\"?>\n"
       "<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
       "  <PolyData>\n"
       "    <FieldData>\n";
  for (const char* name : {"TIME", "TimeValue"}) {
    s += "      <DataArray type=\"Float64\" Name=\"";
    s += name;
    s += "\" NumberOfTuples=\"1\" format=\"ascii\">";
    appendShortestNumber(s, t);
    s += "</DataArray>\n";
  }
  s += "    </FieldData>\n";
  s += "    <Piece NumberOfPoints=\"" + std::to_string(top.points + top.shapeVertices) +
       "\" NumberOfVerts=\"" + std::to_string(top.verts.size()) + "\" NumberOfLines=\"" +
       std::to_string(top.lines.size()) + "\" NumberOfStrips=\"0\" NumberOfPolys=\"" +
       std::to_string(top.shapeTriangles) + "\">\n";
  s += "      <PointData Scalars=\"kind\">\n";
  appendIntArray(s, "Int32", "fixed", top.fixed);
  appendIntArray(s, "Int32", "kind", top.kind);
  s += "      </PointData>\n";
  s += "      <CellData Scalars=\"kind\">\n";
  appendIntArray(s, "Int32", "kind", top.cellKind);
  appendIntArray(s, "Int32", "index", top.cellIndex);
  appendIntArray(s, "UInt8", "colour", top.cellColour, 3);
  s += "      </CellData>\n";
  s += "      <Points>\n        <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n";
  auto appendPoint = [&](const Eigen::Vector3d& p) {
    s += "         ";
    for (int k = 0; k < 3; ++k) {
      s += ' ';
      appendShortestNumber(s, p(k));
    }
    s += '\n';
  };
  for (int i = 0; i < static_cast<int>(model.spec().points.size()); ++i)
    appendPoint(pointPosition(model, q, i));
  for (int i = 0; i < static_cast<int>(model.markers().size()); ++i) appendPoint(markerPosition(model, q, i));
  std::vector<std::vector<int>> polys;
  polys.reserve(top.shapeTriangles);
  int base = top.points;
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  int posed = -1;
  for (const ShapePart& part : top.shapes.parts) {
    if (part.body != posed) {  // parts come body by body: one pose per body
      pose = poses.pose(model, q, part.body);
      posed = part.body;
    }
    for (const Eigen::Vector3d& v : part.mesh.vertices) appendPoint(pose * v);
    for (const auto& tri : part.mesh.triangles)
      polys.push_back({base + static_cast<int>(tri[0]), base + static_cast<int>(tri[1]),
                       base + static_cast<int>(tri[2])});
    base += static_cast<int>(part.mesh.vertices.size());
  }
  s += "        </DataArray>\n      </Points>\n";
  std::vector<std::vector<int>> verts;
  for (int v : top.verts) verts.push_back({v});
  appendCells(s, "Verts", verts);
  appendCells(s, "Lines", top.lines);
  appendCells(s, "Polys", polys);
  s += "    </Piece>\n  </PolyData>\n</VTKFile>\n";
  return s;
}

// Writes a whole file; throws FileError naming the destination and the file.
void writeFile(const fs::path& file, const std::string& text, const std::string& destination) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) throw FileError(destination + ": cannot create " + file.string());
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) throw FileError(destination + ": cannot write " + file.string() + " (disk full?)");
}

// An earlier export (or an empty directory): regular .pvd and .vtp files only.
// Otherwise names the first thing that is not, in `culprit`.
bool holdsOnlyExport(const fs::path& dir, std::string& culprit) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    const std::string ext = p.extension().string();
    std::error_code statusError;
    if (!fs::is_regular_file(it->symlink_status(statusError)) || (ext != ".pvd" && ext != ".vtp")) {
      culprit = p.filename().string();
      return false;
    }
  }
  if (ec) {
    culprit = "(cannot list it: " + ec.message() + ")";
    return false;
  }
  return true;
}

// Makes room for a sibling work directory we own: removes a leftover export
// there (an interrupted earlier export), refuses anything else.
void clearLeftover(const fs::path& path, const std::string& destination) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (!fs::exists(status)) return;
  std::string culprit;
  if (!fs::is_directory(status) || !holdsOnlyExport(path, culprit))
    throw FileError(destination + ": " + path.string() +
                    " is in the way (not a leftover export); move it away and export again");
  fs::remove_all(path, ec);
  if (ec)
    throw FileError(destination + ": cannot remove the leftover " + path.string() + ": " + ec.message());
}

void checkInput(const Model& model, const Eigen::VectorXd& t, const Eigen::MatrixXd& q,
                const ParaviewExportOptions& options) {
  if (options.stride < 1)
    throw InputError("ParaView export: stride must be >= 1 (got " + std::to_string(options.stride) + ")");
  if (t.size() == 0) throw InputError("ParaView export: the run has no samples");
  if (q.rows() != model.nq() || q.cols() != t.size())
    throw InputError("ParaView export: coordinates are " + std::to_string(q.rows()) + " x " +
                     std::to_string(q.cols()) + ", expected " + std::to_string(model.nq()) + " x " +
                     std::to_string(t.size()) + " (coordinates of mechanism " + inQuotes(model.spec().name) +
                     " x samples)");
  for (Eigen::Index k = 0; k < t.size(); ++k) {
    const std::string where = "ParaView export: sample " + std::to_string(k + 1);
    if (!std::isfinite(t(k))) throw InputError(where + ": time is not a finite number");
    if (k > 0 && !(t(k) > t(k - 1)))
      throw InputError(where + ": time " + std::to_string(t(k)) + " s does not increase");
    for (Eigen::Index i = 0; i < q.rows(); ++i)
      if (!std::isfinite(q(i, k)))
        throw InputError(where + " (t = " + std::to_string(t(k)) +
                         " s): " + model.coordinateName(static_cast<int>(i)) + " is not a finite number");
  }
}

std::string frameName(int frame) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "frame_%06d.vtp", frame);
  return buffer;
}

}  // namespace

ParaviewExportResult exportParaview(const Model& model, const Eigen::VectorXd& t, const Eigen::MatrixXd& q,
                                    const std::string& directory, const ParaviewExportOptions& options,
                                    Monitor* monitor) {
  checkInput(model, t, q, options);
  if (directory.empty()) throw InputError("ParaView export: no destination directory given");
  fs::path dest(directory);
  if (!dest.has_filename()) dest = dest.parent_path();  // "out/" -> "out"
  const std::string name = dest.filename().string();
  if (name.empty() || name == "." || name == "..")
    throw InputError("ParaView export: " + inQuotes(directory) + " does not name a new directory");

  // The destination: refused unless it is an earlier export that may be replaced.
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(dest, ec);
  const bool exists = fs::exists(status);
  if (exists) {
    std::string culprit;
    if (!fs::is_directory(status))
      throw FileError(directory + ": exists and is not a directory; not replaced");
    if (!holdsOnlyExport(dest, culprit))
      throw FileError(directory + ": exists and holds other files than a ParaView export (" + culprit +
                      "); not replaced: choose a new or empty directory");
    if (!options.replace) throw FileError(directory + ": already exists; not replaced");
  }

  const WriteLock lock(dest.string());  // a second export to the same directory is refused at once
  const fs::path work = dest.string() + ".part";
  const fs::path old = dest.string() + ".old";
  clearLeftover(work, directory);
  if (!fs::create_directory(work, ec) || ec)
    throw FileError(directory + ": cannot create the directory " + work.string() + ": " +
                    (ec ? ec.message() : std::string("it exists")));

  ParaviewExportResult result;
  result.directory = directory;
  result.collection = (fs::path(directory) / (name + ".pvd")).string();
  try {
    const Topology top = topology(model);
    const BodyPoses poses(model);
    result.notes = top.shapes.notes;
    const auto samples = static_cast<long long>(t.size());
    const long long frames = (samples - 1) / options.stride + 1;
    std::string pvd =
        "<?xml version=\"1.0\"?>\n"
        "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
        "  <Collection>\n";
    for (long long f = 0; f < frames; ++f) {
      const Eigen::Index k = static_cast<Eigen::Index>(f * options.stride);
      const std::string file = frameName(static_cast<int>(f));
      writeFile(work / file, frameText(model, top, poses, t(k), q.col(k)), directory);
      pvd += "    <DataSet timestep=\"";
      appendShortestNumber(pvd, t(k));
      pvd += "\" group=\"\" part=\"0\" file=\"" + file + "\"/>\n";
      if (monitor) {
        monitor->report({kStage, f + 1, frames, {{"t", t(k)}}});
        monitor->checkpoint();
      }
    }
    pvd += "  </Collection>\n</VTKFile>\n";
    writeFile(work / (name + ".pvd"), pvd, directory);
    result.frames = static_cast<int>(frames);

    // Swap the finished directory in; an earlier export goes only once the new one is in place.
    if (exists) {
      clearLeftover(old, directory);
      fs::rename(dest, old, ec);
      if (ec)
        throw FileError(directory + ": cannot move the earlier export aside to " + old.string() + ": " +
                        ec.message());
    }
    fs::rename(work, dest, ec);
    if (ec) {
      std::error_code back;
      if (exists) fs::rename(old, dest, back);
      throw FileError(directory + ": cannot rename " + work.string() + " to it: " + ec.message());
    }
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(work, ignored);
    throw;
  }
  if (exists) fs::remove_all(old, ec);  // the new export is complete either way
  return result;
}

ParaviewExportResult exportParaview(const Model& model, const std::vector<Sample>& samples,
                                    const std::string& directory, const ParaviewExportOptions& options,
                                    Monitor* monitor) {
  const auto n = static_cast<Eigen::Index>(samples.size());
  Eigen::VectorXd t(n);
  Eigen::MatrixXd q(model.nq(), n);
  for (Eigen::Index k = 0; k < n; ++k) {
    const Sample& s = samples[static_cast<std::size_t>(k)];
    if (s.q.size() != model.nq())
      throw InputError("ParaView export: sample " + std::to_string(k + 1) + " has " +
                       std::to_string(s.q.size()) + " coordinates, expected " + std::to_string(model.nq()));
    t(k) = s.t;
    q.col(k) = s.q;
  }
  return exportParaview(model, t, q, directory, options, monitor);
}

}  // namespace mbdrom
