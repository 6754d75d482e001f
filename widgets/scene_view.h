#pragma once
// The 3D view: VTK renders into a native OpenGL child window (a QOpenGLWindow
// in a window container), so the rest of the workbench is flushed by raster
// and never re-composed through OpenGL. No VTK type is visible here.

#include <Eigen/Core>
#include <QImage>
#include <QPointF>
#include <QWidget>

#include <QString>

#include <memory>
#include <optional>
#include <vector>

class QKeySequence;
class QOpenGLWindow;

namespace mbdrom {
class Model;
}

namespace mbdrom::widgets {

class MechanismScene;

class SceneView : public QWidget {
  Q_OBJECT
 public:
  enum class CameraPreset { Iso, Front, Side, Top };
  enum class WorkPlane { XY, XZ, YZ };

  explicit SceneView(QWidget* parent = nullptr);
  ~SceneView() override;

  /// Shows a mechanism at coordinates q (size model.nq()): points as spheres
  /// (fixed ones as dark cubes), bodies as tubes, springs as coils, unit
  /// vectors as arrows, markers as small spheres, joints as glyphs by type.
  /// Replaces any previous one; `fit`: fit the camera to it (false keeps the
  /// view, e.g. after an edit). The selection is cleared (mechanismShown() says so).
  void showMechanism(const Model& model, const Eigen::VectorXd& q, bool fit = true);
  /// Moves the shown mechanism to q; actors are updated, never re-created.
  void updateConfiguration(const Model& model, const Eigen::VectorXd& q);
  /// Removes the mechanism.
  void clearMechanism();
  bool hasMechanism() const;
  /// The drawing of the shown mechanism (drawn points, bodies, trails).
  MechanismScene& scene();
  /// Ghost drawing i of a further motion over the mechanism (created on first
  /// use; give it setGhostStyle and show it); they are never picked.
  MechanismScene& overlay(int i);
  int overlayCount() const;
  void clearOverlays();

  /// Fits the camera to the mechanism (or the ground grid when there is none).
  void fitView();
  void setCameraPreset(CameraPreset preset);

  /// Selection: drawn points (basic points then markers), bodies and joints (in
  /// the model's order; a joint is highlighted at its point). A single free basic
  /// point gets a drag handle.
  void setSelection(const std::vector<int>& points, const std::vector<int>& bodies,
                    const std::vector<int>& joints = {});
  const std::vector<int>& selectedPoints() const { return selectedPoints_; }
  const std::vector<int>& selectedBodies() const { return selectedBodies_; }
  const std::vector<int>& selectedJoints() const { return selectedJoints_; }

  /// While on, a left click creates a point on the work plane where placementAt() says.
  void setAddPointMode(bool on);
  bool addPointMode() const { return addPointMode_; }
  void setWorkPlane(WorkPlane plane);
  WorkPlane workPlane() const { return workPlane_; }
  /// The grid placements snap to [m]; 0: none.
  void setGridStep(double step) { gridStep_ = step; }
  double gridStep() const { return gridStep_; }

  /// Where a click places a point, and why there.
  struct Placement {
    Eigen::Vector3d position = Eigen::Vector3d::Zero();  ///< on the work plane [m]
    /// Each coordinate with what it snapped to, e.g. "x 0.3 (A), y 0 (work plane), z 0.35 (grid)".
    QString description;
  };
  /// The placement under a widget position: on the work plane, each in-plane coordinate
  /// taken from the nearest existing point or axis whose line passes within a few pixels
  /// of the pointer, else from the grid; `snap` false: where the pointer is. nullopt when
  /// the plane is seen edge-on.
  std::optional<Placement> placementAt(QPointF pos, bool snap = true) const;

  void setLabelsVisible(bool visible);

  /// Where drawn point i appears in widget coordinates (logical pixels).
  QPointF displayPosition(int drawnPoint) const;
  /// Where the point p [m] appears in widget coordinates (logical pixels).
  QPointF worldToWidget(const Eigen::Vector3d& p) const;
  /// Drawn point under a widget position (within a few pixels), or -1.
  int pointAt(QPointF pos) const;
  /// Body under a widget position: near its stick figure or on one of its
  /// display shapes; -1 for none (points take precedence).
  int bodyAt(QPointF pos) const;

  /// Asks for a frame (asynchronous, coalesced).
  void requestRender();
  /// Renders now, synchronously, and returns the time it took [ms]
  /// (scene update + render, as measured for the frame-time goal).
  double renderNow();
  /// Renders and reads back the 3D view (null if it is not shown yet).
  QImage grabFramebuffer();
  /// A screenshot of `top` with every visible 3D view in it drawn in place
  /// (QWidget::grab() cannot read a native OpenGL child window).
  static QImage grabWindow(QWidget* top);

  /// Encodes frames into an Ogg Theora video (.ogv) with VTK's encoder. It is
  /// here because the scene view is the one place that includes VTK;
  /// VideoWriter wraps it with the checks, the temporary name and the messages.
  class VideoEncoder {
   public:
    VideoEncoder();
    ~VideoEncoder();  // ends a started stream
    VideoEncoder(const VideoEncoder&) = delete;
    VideoEncoder& operator=(const VideoEncoder&) = delete;

    /// Prepares a stream into `path` of frames of `size` (pixels, even numbers)
    /// at `rate` frames per second; the file is created by the first frame.
    void open(const QString& path, QSize size, int rate);
    /// Appends a frame: Format_RGB888 of the opened size, top row first.
    void write(const QImage& rgb);
    /// Ends the stream (when a frame was written); false if the encoder failed.
    bool close();

   private:
    struct Vtk;
    std::unique_ptr<Vtk> vtk_;
  };

  /// Why the view cannot draw (no usable OpenGL), empty when it can.
  QString graphicsError() const { return graphicsError_; }

  /// Number of frames rendered so far (for tests and frame-time measurement).
  long long framesRendered() const;
  /// Duration of the last render [ms].
  double lastRenderMs() const;

  /// Must be set before the QApplication exists (design notes: GL 3.2 core).
  static void setDefaultSurfaceFormat();

 signals:
  void rendered();
  /// OpenGL is not usable: the view stays empty; `message` says why.
  void graphicsFailed(const QString& message);
  /// A click picked drawn point i, body b or joint j (with Ctrl: toggle in the
  /// selection, with Shift: add to it). A second plain click on a selected point that
  /// carries joints picks its joints in turn, then the point again.
  void pointClicked(int drawnPoint, Qt::KeyboardModifiers modifiers);
  void bodyClicked(int body, Qt::KeyboardModifiers modifiers);
  void jointClicked(int joint, Qt::KeyboardModifiers modifiers);
  /// A click on empty space (clears the selection unless Ctrl is held).
  void emptyClicked(Qt::KeyboardModifiers modifiers);
  /// The drag handle moved basic point `point` to `position` [m] (on release).
  void pointDragged(int point, const Eigen::Vector3d& position);
  /// Add-point mode: the work plane was clicked at `position` [m] (snapped, as placementAt()).
  void workPlaneClicked(const Eigen::Vector3d& position);
  /// Add-point mode: the pointer is over the work plane where a click would place a point
  /// (`placement.description` empty: it left the view).
  void placementHovered(const mbdrom::widgets::SceneView::Placement& placement);
  void addPointModeChanged(bool on);
  /// showMechanism() drew a mechanism (and cleared the selection).
  void mechanismShown();
  /// A key the view does not use itself (the view's native window has the keyboard
  /// focus, so the window's shortcuts do not see it): the window triggers its action.
  void shortcutKeyPressed(const QKeySequence& key);
  /// Space was pressed in the view (play or pause the motion). Keys reach the view's
  /// OpenGL window, which takes the focus from every widget, so no widget shortcut sees them.
  void playPauseRequested();

 protected:
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  class Surface;
  struct Vtk;

  // What the constructor sets up, in this order.
  void createSurface();
  void setUpRenderWindow();
  void setUpInteractor();
  void buildGroundGrid();
  void buildAxes();

  void initializeVtk();
  void renderVtk();
  void forwardMouse(QMouseEvent* event, unsigned long vtkEvent);
  double pixelRatio() const;
  // Ray through a widget position as (origin, unit direction) in world coordinates.
  std::pair<Eigen::Vector3d, Eigen::Vector3d> rayAt(QPointF pos) const;
  Eigen::Vector3d dragPosition(QPointF pos) const;
  void updateHover(QPointF pos, QPointF global);
  void clearHover();
  void clickAt(QPointF pos, Qt::KeyboardModifiers modifiers);
  // The picks of a click on drawn point `point` with no modifier: its joints in turn.
  void clickPoint(int point, Qt::KeyboardModifiers modifiers);
  void showPlacement(QPointF pos, Qt::KeyboardModifiers modifiers);
  void hidePlacement();
  Eigen::Vector3d workPlaneNormal() const;

  std::unique_ptr<Vtk> vtk_;
  QString graphicsError_;
  Surface* surface_ = nullptr;
  QWidget* container_ = nullptr;
  std::vector<int> selectedPoints_, selectedBodies_, selectedJoints_;
  bool addPointMode_ = false;
  WorkPlane workPlane_ = WorkPlane::XY;
  double gridStep_ = 0.0;
  // Mouse state: a press becomes a click if the mouse hardly moved.
  QPointF pressPos_;
  bool pressed_ = false;
  int draggingPoint_ = -1;
  Eigen::Vector3d dragStart_ = Eigen::Vector3d::Zero();
  int hoverPoint_ = -1, hoverBody_ = -1;
};

}  // namespace mbdrom::widgets
