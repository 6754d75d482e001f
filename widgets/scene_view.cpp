#include "widgets/scene_view.h"

#include "widgets/mechanism_scene.h"
#include "widgets/scene_view_vtk.h"

#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QOpenGLContext>
#include <QOpenGLExtraFunctions>
#include <QOpenGLWindow>
#include <QPainter>
#include <QSurfaceFormat>
#include <QTimer>
#include <QVBoxLayout>

#include "engine/model/model.h"

#include <vtkCallbackCommand.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkImageData.h>
#include <vtkOggTheoraWriter.h>
#include <vtkOpenGLFramebufferObject.h>
#include <vtkOpenGLState.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>

#include <algorithm>
#include <cstring>

namespace mbdrom::widgets {

void SceneView::setDefaultSurfaceFormat() {
  QSurfaceFormat format;
  format.setRenderableType(QSurfaceFormat::OpenGL);
  format.setVersion(3, 2);
  format.setProfile(QSurfaceFormat::CoreProfile);
  format.setDepthBufferSize(24);
  format.setStencilBufferSize(0);
  format.setSamples(0);
  QSurfaceFormat::setDefaultFormat(format);
}

SceneView::SceneView(QWidget* parent) : QWidget(parent), vtk_(std::make_unique<Vtk>()) {
  setObjectName("sceneView");
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  setMinimumSize(320, 240);

  createSurface();
  vtk_->mech = std::make_unique<MechanismScene>(vtk_->renderer);
  setUpRenderWindow();
  setUpInteractor();
  buildGroundGrid();
  buildAxes();
  setCameraPreset(CameraPreset::Iso);
}

// The native window VTK draws into, in a container; or a label that says why there is none.
void SceneView::createSurface() {
  surface_ = new Surface(this);
  // An opaque window: no alpha channel for the window system to blend.
  QSurfaceFormat format = QSurfaceFormat::defaultFormat();
  format.setAlphaBufferSize(0);
  surface_->setFormat(format);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  // Without OpenGL 3.2 (the offscreen platform, an X server without GLX) the
  // native window cannot even paint: show why instead of the view.
  QOpenGLContext probe;
  probe.setFormat(format);
  const bool created = probe.create();
  const int version = probe.format().majorVersion() * 10 + probe.format().minorVersion();
  if (!created || version < 32) {
    graphicsError_ =
        (created ? tr("the 3D view needs OpenGL 3.2 or newer; this display offers %1.%2.")
                       .arg(probe.format().majorVersion())
                       .arg(probe.format().minorVersion())
                 : tr("the 3D view needs OpenGL, and this display offers none.")) +
        tr(" Under X use Mesa (LIBGL_ALWAYS_SOFTWARE=1) or 'xvfb-run'; mbdrom-cli needs no display.");
    qWarning("%s", qPrintable(graphicsError_));
    auto* label = new QLabel(graphicsError_, this);
    label->setObjectName("sceneUnavailable");
    label->setWordWrap(true);
    label->setAlignment(Qt::AlignCenter);
    layout->addWidget(label);
    container_ = label;
    QTimer::singleShot(0, this, [this] { emit graphicsFailed(graphicsError_); });
  } else {
    container_ = QWidget::createWindowContainer(surface_, this);
    container_->setObjectName("sceneSurface");
    container_->setFocusPolicy(Qt::StrongFocus);
    setFocusProxy(container_);
    layout->addWidget(container_);
  }
}

// VTK's window draws into the surface's framebuffer, with the surface's context.
void SceneView::setUpRenderWindow() {
  auto& v = *vtk_;
  v.window->SetOwnContext(false);
  v.window->SetMultiSamples(0);  // MSAA framebuffers fail on Mesa llvmpipe
  v.window->SetFrameBlitModeToNoBlit();
  v.window->SetReadyForRendering(false);
  v.window->AddRenderer(v.renderer);

  // VTK asks for its context to be made current in the middle of setting up
  // its own framebuffers: only make the context current on the surface, as
  // VTK's own Qt adapter does, without binding any framebuffer.
  auto makeCurrentCallback = [](vtkObject*, unsigned long, void* clientData, void*) {
    auto* vtk = static_cast<Vtk*>(clientData);
    if (!vtk->context || !vtk->surface) return;
    if (QOpenGLContext::currentContext() == vtk->context && vtk->context->surface() == vtk->surface) return;
    vtk->context->makeCurrent(vtk->surface);
  };
  auto isCurrentCallback = [](vtkObject*, unsigned long, void* clientData, void* callData) {
    auto* vtk = static_cast<Vtk*>(clientData);
    *static_cast<bool*>(callData) = vtk->context && QOpenGLContext::currentContext() == vtk->context &&
                                    vtk->context->surface() == vtk->surface;
  };
  vtkNew<vtkCallbackCommand> makeCurrent;
  makeCurrent->SetCallback(makeCurrentCallback);
  makeCurrent->SetClientData(&v);
  v.window->AddObserver(vtkCommand::WindowMakeCurrentEvent, makeCurrent);
  vtkNew<vtkCallbackCommand> isCurrent;
  isCurrent->SetCallback(isCurrentCallback);
  isCurrent->SetClientData(&v);
  v.window->AddObserver(vtkCommand::WindowIsCurrentEvent, isCurrent);
}

void SceneView::setUpInteractor() {
  auto& v = *vtk_;
  // The interactor never renders itself: every event ends in requestRender(),
  // and rendering happens only with the surface's context current.
  v.interactor->SetRenderWindow(v.window);
  v.interactor->SetInteractorStyle(v.style);
  v.interactor->EnableRenderOff();
  v.style->SetDefaultRenderer(v.renderer);
}

// A plain background and the ground grid under the mechanism.
void SceneView::buildGroundGrid() {
  auto& v = *vtk_;
  // A plain background: with software OpenGL a gradient costs a few ms per frame.
  v.renderer->SetBackground(0.62, 0.67, 0.74);

  // Ground grid in the x-y plane (z up), 4 m square with 0.2 m cells, drawn
  // as 42 long lines (a wireframe plane would draw every cell edge).
  vtkNew<vtkPoints> gridPoints;
  vtkNew<vtkCellArray> gridLines;
  for (int i = 0; i <= 20; ++i) {
    const double c = -2.0 + 0.2 * i;
    const vtkIdType a = gridPoints->InsertNextPoint(c, -2.0, 0.0),
                    b = gridPoints->InsertNextPoint(c, 2.0, 0.0);
    const vtkIdType e = gridPoints->InsertNextPoint(-2.0, c, 0.0),
                    f = gridPoints->InsertNextPoint(2.0, c, 0.0);
    const vtkIdType along[2] = {a, b}, across[2] = {e, f};
    gridLines->InsertNextCell(2, along);
    gridLines->InsertNextCell(2, across);
  }
  vtkNew<vtkPolyData> gridData;
  gridData->SetPoints(gridPoints);
  gridData->SetLines(gridLines);
  vtkNew<vtkPolyDataMapper> gridMapper;
  gridMapper->SetInputData(gridData);
  v.grid->SetMapper(gridMapper);
  v.grid->GetProperty()->SetColor(0.50, 0.54, 0.60);
  v.grid->GetProperty()->SetLighting(false);
  v.grid->PickableOff();
  v.renderer->AddActor(v.grid);
}

// The world axes at the origin, and the orientation marker in the bottom-left corner.
void SceneView::buildAxes() {
  auto& v = *vtk_;
  v.axes->SetTotalLength(0.3, 0.3, 0.3);
  v.axes->SetShaftTypeToCylinder();
  v.axes->SetCylinderRadius(0.02);
  v.axes->SetConeRadius(0.25);
  v.axes->SetCylinderResolution(10);
  v.axes->SetConeResolution(10);
  v.axes->AxisLabelsOff();
  v.axes->PickableOff();
  v.renderer->AddActor(v.axes);

  v.orientation->SetOrientationMarker(v.orientationAxes);
  v.orientation->SetInteractor(v.interactor);
  v.orientation->SetViewport(0.0, 0.0, 0.18, 0.18);
}

SceneView::~SceneView() {
  if (!vtk_->initialized) return;
  surface_->makeCurrent();
  vtk_->overlays.clear();
  vtk_->mech.reset();
  vtk_->orientation->SetEnabled(0);
  vtk_->window->Finalize();
  surface_->doneCurrent();
}

long long SceneView::framesRendered() const {
  return vtk_->frames;
}
double SceneView::lastRenderMs() const {
  return vtk_->lastRenderMs;
}
MechanismScene& SceneView::scene() {
  return *vtk_->mech;
}

MechanismScene& SceneView::overlay(int i) {
  auto& list = vtk_->overlays;
  while (static_cast<int>(list.size()) <= i) list.push_back(std::make_unique<MechanismScene>(vtk_->renderer));
  return *list[static_cast<std::size_t>(i)];
}

int SceneView::overlayCount() const {
  return static_cast<int>(vtk_->overlays.size());
}

void SceneView::clearOverlays() {
  vtk_->overlays.clear();
  requestRender();
}
double SceneView::pixelRatio() const {
  return surface_->devicePixelRatio();
}

void SceneView::initializeVtk() {
  auto& v = *vtk_;
  // Without OpenGL 3.2 (e.g. the offscreen platform, or a remote X server
  // without GLX) VTK cannot draw: say so once and leave the view empty.
  QOpenGLContext* context = surface_->context();
  const QSurfaceFormat format = context ? context->format() : QSurfaceFormat();
  if (!context || !context->isValid() || QOpenGLContext::currentContext() != context ||
      format.majorVersion() * 10 + format.minorVersion() < 32) {
    graphicsError_ = tr("the 3D view needs OpenGL 3.2 or newer; this display offers %1.%2. "
                        "Under X use Mesa (LIBGL_ALWAYS_SOFTWARE=1) or 'xvfb-run'.")
                         .arg(format.majorVersion())
                         .arg(format.minorVersion());
    emit graphicsFailed(graphicsError_);
    return;
  }
  v.context = context;
  v.surface = surface_;
  v.window->SetReadyForRendering(true);
  v.window->SetForceMaximumHardwareLineWidth(1);
  v.window->GetState()->Reset();
  v.window->GetState()->vtkglDepthFunc(GL_LEQUAL);
  v.window->OpenGLInitContext();
  v.initialized = true;
  v.orientation->SetEnabled(1);
  v.orientation->InteractiveOff();
}

void SceneView::renderVtk() {
  auto& v = *vtk_;
  if (!v.initialized) return;
  QElapsedTimer clock;
  clock.start();
  const double ratio = pixelRatio();
  const int pw = std::max(1, static_cast<int>(surface_->width() * ratio));
  const int ph = std::max(1, static_cast<int>(surface_->height() * ratio));
  v.window->SetSize(pw, ph);
  v.interactor->SetSize(pw, ph);
  // VTK caches GL state; Qt may have changed it, so the cache is re-read
  // before and restored after VTK draws.
  auto* state = v.window->GetState();
  state->Reset();
  state->Push();
  state->vtkglDepthFunc(GL_LEQUAL);  // Qt leaves GL_LESS; VTK expects GL_LEQUAL
  v.window->SetReadyForRendering(true);
  v.window->SetIsCurrent(true);
  v.window->Render();

  // VTK renders into its own framebuffer; copy it into the window's back buffer.
  auto* f = v.context->extraFunctions();
  const GLuint target = surface_->defaultFramebufferObject();
  f->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, target);
  const GLenum buffer = target == 0 ? GL_BACK_LEFT : GL_COLOR_ATTACHMENT0;
  f->glDrawBuffers(1, &buffer);
  const bool scissor = f->glIsEnabled(GL_SCISSOR_TEST) == GL_TRUE;
  if (scissor) {
    v.window->GetState()->vtkglDisable(GL_SCISSOR_TEST);
    f->glDisable(GL_SCISSOR_TEST);
  }
  const int* size = v.window->GetRenderFramebuffer()->GetLastSize();
  v.window->BlitDisplayFramebuffer(0, 0, 0, size[0], size[1], 0, 0, pw, ph, GL_COLOR_BUFFER_BIT, GL_NEAREST);
  if (scissor) {
    v.window->GetState()->vtkglEnable(GL_SCISSOR_TEST);
    f->glEnable(GL_SCISSOR_TEST);
  }
  state->Pop();
  ++v.frames;
  v.lastRenderMs = static_cast<double>(clock.nsecsElapsed()) * 1e-6;
  emit rendered();
}

void SceneView::requestRender() {
  surface_->update();
}

double SceneView::renderNow() {
  if (!vtk_->initialized || !surface_->isExposed()) return -1.0;
  QElapsedTimer clock;
  clock.start();
  surface_->makeCurrent();
  renderVtk();
  vtk_->context->swapBuffers(surface_);
  return static_cast<double>(clock.nsecsElapsed()) * 1e-6;
}

QImage SceneView::grabFramebuffer() {
  if (!vtk_->initialized || !surface_->isExposed()) return {};
  surface_->makeCurrent();
  renderVtk();
  const double ratio = pixelRatio();
  const int pw = std::max(1, static_cast<int>(surface_->width() * ratio));
  const int ph = std::max(1, static_cast<int>(surface_->height() * ratio));
  QImage image(pw, ph, QImage::Format_RGBA8888);
  auto* f = vtk_->context->extraFunctions();
  const GLuint source = surface_->defaultFramebufferObject();
  f->glBindFramebuffer(GL_READ_FRAMEBUFFER, source);
  f->glReadBuffer(source == 0 ? GL_BACK : GL_COLOR_ATTACHMENT0);
  f->glPixelStorei(GL_PACK_ALIGNMENT, 4);
  f->glReadPixels(0, 0, pw, ph, GL_RGBA, GL_UNSIGNED_BYTE, image.bits());
  vtk_->context->swapBuffers(surface_);
  image = image.mirrored(false, true).convertToFormat(QImage::Format_RGB32);
  image.setDevicePixelRatio(ratio);
  return image;
}

struct SceneView::VideoEncoder::Vtk {
  vtkNew<vtkImageData> image;
  vtkNew<vtkOggTheoraWriter> writer;
  // VTK's Theora writer must see a frame between Start() and End(): its End()
  // flushes an encoder that only the first Write() sets up. So it starts lazily.
  bool started = false;
};

SceneView::VideoEncoder::VideoEncoder() : vtk_(std::make_unique<Vtk>()) {}

SceneView::VideoEncoder::~VideoEncoder() {
  close();
}

void SceneView::VideoEncoder::open(const QString& path, QSize size, int rate) {
  close();
  vtk_->image->SetDimensions(size.width(), size.height(), 1);
  vtk_->image->AllocateScalars(VTK_UNSIGNED_CHAR, 3);
  vtk_->writer->SetInputData(vtk_->image);
  vtk_->writer->SetFileName(QFile::encodeName(path).constData());
  vtk_->writer->SetRate(rate);
  vtk_->writer->SetQuality(2);
  vtk_->writer->SetSubsampling(1);
}

void SceneView::VideoEncoder::write(const QImage& rgb) {
  int dims[3];
  vtk_->image->GetDimensions(dims);
  const int w = dims[0], h = dims[1];
  Q_ASSERT(rgb.format() == QImage::Format_RGB888 && rgb.width() == w && rgb.height() == h);
  auto* out = static_cast<unsigned char*>(vtk_->image->GetScalarPointer());
  // VTK images start at the bottom row.
  for (int y = 0; y < h; ++y)
    std::memcpy(out + static_cast<std::size_t>(y) * w * 3, rgb.constScanLine(h - 1 - y),
                static_cast<std::size_t>(w) * 3);
  vtk_->image->Modified();
  if (!vtk_->started) {
    vtk_->writer->Start();
    vtk_->started = true;
  }
  vtk_->writer->Write();
}

bool SceneView::VideoEncoder::close() {
  if (!vtk_->started) return true;
  vtk_->writer->End();
  vtk_->started = false;
  return !vtk_->writer->GetError();
}

QImage SceneView::grabWindow(QWidget* top) {
  QImage shot = top->grab().toImage();
  QPainter painter(&shot);
  QList<SceneView*> views = top->findChildren<SceneView*>();
  if (auto* self = qobject_cast<SceneView*>(top)) views.prepend(self);
  for (SceneView* view : views) {
    if (!view->isVisible()) continue;
    const QImage scene = view->grabFramebuffer();
    if (scene.isNull()) continue;
    painter.drawImage(QRect(view->mapTo(top, QPoint(0, 0)), view->size()), scene);
  }
  return shot;
}

bool SceneView::hasMechanism() const {
  return vtk_->mech->shown();
}

void SceneView::showMechanism(const Model& model, const Eigen::VectorXd& q, bool fit) {
  vtk_->mech->show(model, q);
  // The world axes follow a small mechanism's size (a 40 mm linkage under 0.3 m arrows is lost).
  double length = 0.3;
  if (vtk_->mech->drawnPointCount() > 0) {
    double b[6];
    vtk_->mech->bounds(b);
    const double span = std::max({b[1] - b[0], b[3] - b[2], b[5] - b[4]});
    if (span > 1e-9) length = std::min(0.3, 0.3 * span);
  }
  vtk_->axes->SetTotalLength(length, length, length);
  selectedPoints_.clear();
  selectedBodies_.clear();
  selectedJoints_.clear();
  hoverPoint_ = hoverBody_ = -1;
  draggingPoint_ = -1;
  if (fit) fitView();
  requestRender();
  emit mechanismShown();
}

void SceneView::updateConfiguration(const Model& model, const Eigen::VectorXd& q) {
  vtk_->mech->update(model, q);
  requestRender();
}

void SceneView::clearMechanism() {
  vtk_->mech->clear();
  selectedPoints_.clear();
  selectedBodies_.clear();
  selectedJoints_.clear();
  hoverPoint_ = hoverBody_ = -1;
  draggingPoint_ = -1;
  requestRender();
}

void SceneView::fitView() {
  auto* renderer = vtk_->renderer.Get();
  if (vtk_->mech->shown() && vtk_->mech->drawnPointCount() > 0) {
    double bounds[6];
    vtk_->mech->bounds(bounds);
    // A single point (the first of a new design) spans nothing to frame: show 0.5 m around it.
    // Anything larger is framed as it is, a millimetre mechanism included.
    const double extent = std::max({bounds[1] - bounds[0], bounds[3] - bounds[2], bounds[5] - bounds[4]});
    if (!(extent > 1e-9))
      for (int k = 0; k < 3; ++k) {
        const double c = 0.5 * (bounds[2 * k] + bounds[2 * k + 1]);
        bounds[2 * k] = c - 0.25;
        bounds[2 * k + 1] = c + 0.25;
      }
    renderer->ResetCamera(bounds);
    renderer->GetActiveCamera()->Zoom(0.95);
  } else {
    // An empty mechanism (a new project): the grid around the origin.
    renderer->ResetCamera();
    renderer->GetActiveCamera()->Zoom(1.1);
  }
  requestRender();
}

void SceneView::setCameraPreset(CameraPreset preset) {
  auto* camera = vtk_->renderer->GetActiveCamera();
  camera->SetFocalPoint(0.0, 0.0, 0.0);
  switch (preset) {
    case CameraPreset::Front: camera->SetPosition(5.0, 0.0, 0.0); break;  // looking back along -x
    case CameraPreset::Side: camera->SetPosition(0.0, -5.0, 0.0); break;  // from the right
    case CameraPreset::Top: camera->SetPosition(0.0, 0.0, 5.0); break;
    case CameraPreset::Iso: camera->SetPosition(4.0, 3.0, 2.5); break;
  }
  camera->SetViewUp(preset == CameraPreset::Top ? 1.0 : 0.0, 0.0, preset == CameraPreset::Top ? 0.0 : 1.0);
  fitView();
}

void SceneView::setSelection(const std::vector<int>& points, const std::vector<int>& bodies,
                             const std::vector<int>& joints) {
  selectedPoints_ = points;
  selectedBodies_ = bodies;
  selectedJoints_ = joints;
  auto& mech = *vtk_->mech;
  int handle = -1;
  if (points.size() == 1 && bodies.empty() && joints.empty() && points[0] >= 0 &&
      points[0] < mech.basicPointCount() && !mech.drawnPointFixed(points[0]))
    handle = points[0];
  // A joint is highlighted at the point it is drawn at.
  std::vector<int> highlighted = points;
  if (mech.shown())
    for (int j : joints)
      if (j >= 0 && j < mech.jointCount() && mech.jointPoint(j) >= 0)
        highlighted.push_back(mech.jointPoint(j));
  mech.setSelection(highlighted, bodies, handle);
  requestRender();
}

void SceneView::setWorkPlane(WorkPlane plane) {
  workPlane_ = plane;
}

void SceneView::setLabelsVisible(bool visible) {
  vtk_->mech->setLabelsVisible(visible);
  requestRender();
}

}  // namespace mbdrom::widgets
