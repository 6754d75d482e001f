#pragma once
// The 3D view: VTK rendering hosted in a Qt 6 QOpenGLWidget. No VTK type is
// visible here, so nothing else in the GUI depends on VTK.

#include <Eigen/Core>
#include <QOpenGLWidget>

#include <memory>

namespace mbdrom {
class Model;
}

namespace mbdrom::widgets {

class SceneView : public QOpenGLWidget {
  Q_OBJECT
public:
  enum class CameraPreset { Iso, Front, Side, Top };

  explicit SceneView(QWidget* parent = nullptr);
  ~SceneView() override;

  /// Shows a mechanism at coordinates q (size model.nq()): points as spheres
  /// (fixed ones as dark cubes), bodies as tubes through their points,
  /// spring-dampers as thin orange lines, unit vectors as arrows at their
  /// body's first point, markers as small spheres. Replaces any previous one;
  /// `fit`: fit the camera to it (false keeps the view, e.g. after an edit).
  void showMechanism(const Model& model, const Eigen::VectorXd& q, bool fit = true);
  /// Moves the shown mechanism to q; actors are updated, never re-created.
  void updateConfiguration(const Model& model, const Eigen::VectorXd& q);
  /// Removes the mechanism.
  void clearMechanism();
  bool hasMechanism() const;

  /// Fits the camera to the mechanism (or the ground grid when there is none).
  void fitView();
  void setCameraPreset(CameraPreset preset);

  /// Number of frames rendered so far (for tests and frame-time measurement).
  long long framesRendered() const;

  /// Must be set before the QApplication exists (design notes: GL 3.2 core).
  static void setDefaultSurfaceFormat();

signals:
  void rendered();

protected:
  void initializeGL() override;
  void paintGL() override;
  void resizeGL(int w, int h) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void enterEvent(QEnterEvent* event) override;
  void leaveEvent(QEvent* event) override;

private:
  void forwardMouse(QMouseEvent* event, unsigned long vtkEvent);

  struct Vtk;
  std::unique_ptr<Vtk> vtk_;
};

}  // namespace mbdrom::widgets
