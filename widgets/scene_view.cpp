#include "widgets/scene_view.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLExtraFunctions>
#include <QSurfaceFormat>
#include <QWheelEvent>

#include "engine/model/model.h"

#include <vtkActor.h>
#include <vtkArrowSource.h>
#include <vtkCellArray.h>
#include <vtkCubeSource.h>
#include <vtkDoubleArray.h>
#include <vtkGlyph3DMapper.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkSphereSource.h>
#include <vtkTubeFilter.h>
#include <vtkAxesActor.h>
#include <vtkCallbackCommand.h>
#include <vtkCamera.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkNew.h>
#include <vtkOpenGLFramebufferObject.h>
#include <vtkOpenGLState.h>
#include <vtkOrientationMarkerWidget.h>
#include <vtkPlaneSource.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkSmartPointer.h>

namespace mbdrom::widgets {

// Actors of a shown mechanism. One vtkPoints holds every drawn location
// (basic points, then markers), shared by glyphs and tubes, so moving the
// mechanism only rewrites coordinates.
struct MechanismActors {
  vtkNew<vtkPoints> points;            // basic points then markers [m]
  vtkNew<vtkPolyData> freePoints, fixedPoints, markers, bodies, springs, vectors;
  vtkNew<vtkPoints> freeLocations, fixedLocations, markerLocations, vectorLocations;
  vtkNew<vtkDoubleArray> vectorDirections;
  std::vector<int> freeIndex, fixedIndex;  // into spec().points
  std::vector<std::pair<int, int>> vectorAt;  // (vector index, drawn point index)
  vtkNew<vtkActor> freeActor, fixedActor, markerActor, bodyActor, springActor, vectorActor;
  vtkNew<vtkTubeFilter> bodyTubes, springTubes;
  bool shown = false;
};

struct SceneView::Vtk {
  vtkNew<vtkGenericOpenGLRenderWindow> window;
  vtkNew<vtkGenericRenderWindowInteractor> interactor;
  vtkNew<vtkInteractorStyleTrackballCamera> style;
  vtkNew<vtkRenderer> renderer;
  vtkNew<vtkActor> grid;
  vtkNew<vtkAxesActor> axes;
  vtkNew<vtkAxesActor> orientationAxes;
  vtkNew<vtkOrientationMarkerWidget> orientation;
  MechanismActors mech;
  long long frames = 0;
  bool initialized = false;
  // The context and surface the widget renders with (captured in initializeGL).
  QOpenGLContext* context = nullptr;
  QSurface* surface = nullptr;
};

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

SceneView::SceneView(QWidget* parent) : QOpenGLWidget(parent), vtk_(std::make_unique<Vtk>()) {
  setObjectName("sceneView");
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  setMinimumSize(320, 240);

  auto& v = *vtk_;
  v.window->SetOwnContext(false);
  v.window->SetMultiSamples(0);  // matches the widget format; MSAA FBOs fail on Mesa llvmpipe
  v.window->SetFrameBlitModeToNoBlit();
  v.window->SetReadyForRendering(false);
  v.window->AddRenderer(v.renderer);

  // VTK asks for its context to be made current in the middle of setting up
  // its own framebuffers. QOpenGLWidget::makeCurrent() would also bind the
  // widget's framebuffer behind VTK's back, and VTK would then attach its
  // textures to it; so only make the context current on the widget's surface,
  // as VTK's own Qt adapter does.
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

  // The interactor never renders itself: every event ends in update(), and
  // rendering happens only in paintGL with the widget's context current.
  v.interactor->SetRenderWindow(v.window);
  v.interactor->SetInteractorStyle(v.style);
  v.interactor->EnableRenderOff();
  v.style->SetDefaultRenderer(v.renderer);

  v.renderer->GradientBackgroundOn();
  v.renderer->SetBackground(0.80, 0.84, 0.89);
  v.renderer->SetBackground2(0.35, 0.40, 0.48);

  // Ground grid in the x-y plane (z up), 4 m square with 0.2 m cells.
  vtkNew<vtkPlaneSource> plane;
  plane->SetOrigin(-2.0, -2.0, 0.0);
  plane->SetPoint1(2.0, -2.0, 0.0);
  plane->SetPoint2(-2.0, 2.0, 0.0);
  plane->SetResolution(20, 20);
  vtkNew<vtkPolyDataMapper> gridMapper;
  gridMapper->SetInputConnection(plane->GetOutputPort());
  v.grid->SetMapper(gridMapper);
  v.grid->GetProperty()->SetRepresentationToWireframe();
  v.grid->GetProperty()->SetColor(0.55, 0.58, 0.62);
  v.grid->GetProperty()->SetLighting(false);
  v.grid->PickableOff();
  v.renderer->AddActor(v.grid);

  v.axes->SetTotalLength(0.3, 0.3, 0.3);
  v.axes->SetShaftTypeToCylinder();
  v.axes->SetCylinderRadius(0.02);
  v.axes->SetConeRadius(0.25);
  v.axes->AxisLabelsOff();
  v.axes->PickableOff();
  v.renderer->AddActor(v.axes);

  v.orientation->SetOrientationMarker(v.orientationAxes);
  v.orientation->SetInteractor(v.interactor);
  v.orientation->SetViewport(0.0, 0.0, 0.18, 0.18);

  setCameraPreset(CameraPreset::Iso);
}

SceneView::~SceneView() {
  if (!vtk_->initialized) return;
  makeCurrent();
  vtk_->orientation->SetEnabled(0);
  vtk_->window->Finalize();
  doneCurrent();
}

long long SceneView::framesRendered() const { return vtk_->frames; }

void SceneView::initializeGL() {
  auto& v = *vtk_;
  v.context = context();
  v.surface = context()->surface();
  v.window->SetReadyForRendering(true);
  v.window->SetForceMaximumHardwareLineWidth(1);
  v.window->GetState()->Reset();
  v.window->GetState()->vtkglDepthFunc(GL_LEQUAL);
  v.window->OpenGLInitContext();
  v.initialized = true;
  v.orientation->SetEnabled(1);
  v.orientation->InteractiveOff();
}

void SceneView::resizeGL(int w, int h) {
  const double ratio = devicePixelRatioF();
  const int pw = static_cast<int>(w * ratio);
  const int ph = static_cast<int>(h * ratio);
  vtk_->window->SetSize(pw, ph);
  vtk_->interactor->SetSize(pw, ph);
}

void SceneView::paintGL() {
  auto& v = *vtk_;
  const double ratio = devicePixelRatioF();
  const int pw = static_cast<int>(width() * ratio);
  const int ph = static_cast<int>(height() * ratio);
  v.window->SetSize(pw, ph);
  // VTK caches GL state; Qt changed it (its own framebuffer is bound now), so
  // the cache is re-read before and restored after VTK draws.
  auto* state = v.window->GetState();
  state->Reset();
  state->Push();
  state->vtkglDepthFunc(GL_LEQUAL);  // Qt leaves GL_LESS; VTK expects GL_LEQUAL
  v.window->SetReadyForRendering(true);
  v.window->SetIsCurrent(true);
  v.window->Render();

  // VTK renders into its own framebuffer; copy it into the widget's.
  auto* f = context()->extraFunctions();
  f->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, defaultFramebufferObject());
  const GLenum attachment = GL_COLOR_ATTACHMENT0;
  f->glDrawBuffers(1, &attachment);
  const bool scissor = f->glIsEnabled(GL_SCISSOR_TEST) == GL_TRUE;
  if (scissor) {
    v.window->GetState()->vtkglDisable(GL_SCISSOR_TEST);
    f->glDisable(GL_SCISSOR_TEST);
  }
  const int* size = v.window->GetRenderFramebuffer()->GetLastSize();
  v.window->BlitDisplayFramebuffer(0, 0, 0, size[0], size[1], 0, 0, pw, ph, GL_COLOR_BUFFER_BIT, GL_LINEAR);
  // Mesa blends a non-opaque alpha channel with whatever lies behind the widget.
  f->glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_TRUE);
  f->glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
  f->glClear(GL_COLOR_BUFFER_BIT);
  f->glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  if (scissor) {
    v.window->GetState()->vtkglEnable(GL_SCISSOR_TEST);
    f->glEnable(GL_SCISSOR_TEST);
  }
  state->Pop();
  ++v.frames;
  emit rendered();
}

namespace {

void setPointsFrom(vtkPoints* out, vtkPoints* all, const std::vector<int>& index) {
  out->SetNumberOfPoints(static_cast<vtkIdType>(index.size()));
  for (std::size_t k = 0; k < index.size(); ++k) out->SetPoint(static_cast<vtkIdType>(k), all->GetPoint(index[k]));
  out->Modified();
}

vtkSmartPointer<vtkGlyph3DMapper> glyphMapper(vtkPolyData* input, vtkAlgorithm* source) {
  auto mapper = vtkSmartPointer<vtkGlyph3DMapper>::New();
  mapper->SetInputData(input);
  mapper->SetSourceConnection(source->GetOutputPort());
  mapper->ScalingOff();
  return mapper;
}

}  // namespace

bool SceneView::hasMechanism() const { return vtk_->mech.shown; }

void SceneView::showMechanism(const Model& model, const Eigen::VectorXd& q, bool fit) {
  clearMechanism();
  auto& m = vtk_->mech;
  const auto& spec = model.spec();
  const int np = static_cast<int>(spec.points.size());
  const int nm = static_cast<int>(model.markers().size());

  // Glyph sizes follow the mechanism's size.
  Eigen::Vector3d lo = Eigen::Vector3d::Constant(1e300), hi = -lo;
  for (const auto& p : spec.points) {
    lo = lo.cwiseMin(p.position);
    hi = hi.cwiseMax(p.position);
  }
  const double size = np > 0 ? std::max((hi - lo).norm(), 0.1) : 1.0;
  const double radius = 0.018 * size;

  m.points->SetNumberOfPoints(np + nm);
  m.freeIndex.clear();
  m.fixedIndex.clear();
  for (int i = 0; i < np; ++i) (spec.points[static_cast<std::size_t>(i)].fixed ? m.fixedIndex : m.freeIndex).push_back(i);

  // Bodies: a closed polygon through their points (a segment for two), and a
  // spoke from the first point to each marker.
  vtkNew<vtkCellArray> bodyLines;
  int markerBase = np;
  for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
    std::vector<vtkIdType> ids;
    for (const auto& name : spec.bodies[b].points) ids.push_back(model.findPoint(name));
    if (ids.size() == 2) {
      bodyLines->InsertNextCell(2, ids.data());
    } else if (ids.size() > 2) {
      for (std::size_t k = 0; k < ids.size(); ++k) {
        const vtkIdType seg[2] = {ids[k], ids[(k + 1) % ids.size()]};
        bodyLines->InsertNextCell(2, seg);
      }
    }
    for (std::size_t k = 0; k < spec.bodies[b].markers.size() && !ids.empty(); ++k) {
      const vtkIdType seg[2] = {ids.front(), markerBase + static_cast<vtkIdType>(k)};
      bodyLines->InsertNextCell(2, seg);
    }
    markerBase += static_cast<int>(spec.bodies[b].markers.size());
    for (const auto& name : spec.bodies[b].vectors)
      if (!ids.empty()) m.vectorAt.emplace_back(model.findVector(name), static_cast<int>(ids.front()));
  }
  m.bodies->SetPoints(m.points);
  m.bodies->SetLines(bodyLines);
  m.bodyTubes->SetInputData(m.bodies);
  m.bodyTubes->SetRadius(0.4 * radius);
  m.bodyTubes->SetNumberOfSides(12);
  vtkNew<vtkPolyDataMapper> bodyMapper;
  bodyMapper->SetInputConnection(m.bodyTubes->GetOutputPort());
  bodyMapper->ScalarVisibilityOff();
  m.bodyActor->SetMapper(bodyMapper);
  m.bodyActor->GetProperty()->SetColor(0.27, 0.51, 0.71);
  m.bodyActor->GetProperty()->SetSpecular(0.3);

  vtkNew<vtkCellArray> springLines;
  for (const auto& sd : spec.springDampers) {
    auto index = [&](const std::string& name) -> vtkIdType {
      const int p = model.findPoint(name);
      if (p >= 0) return p;
      return np + model.findMarker(name);
    };
    const vtkIdType seg[2] = {index(sd.point1), index(sd.point2)};
    if (seg[0] >= 0 && seg[1] >= 0) springLines->InsertNextCell(2, seg);
  }
  m.springs->SetPoints(m.points);
  m.springs->SetLines(springLines);
  m.springTubes->SetInputData(m.springs);
  m.springTubes->SetRadius(0.25 * radius);
  m.springTubes->SetNumberOfSides(10);
  vtkNew<vtkPolyDataMapper> springMapper;
  springMapper->SetInputConnection(m.springTubes->GetOutputPort());
  springMapper->ScalarVisibilityOff();
  m.springActor->SetMapper(springMapper);
  m.springActor->GetProperty()->SetColor(0.93, 0.55, 0.15);

  vtkNew<vtkSphereSource> sphere;
  sphere->SetRadius(radius);
  sphere->SetThetaResolution(16);
  sphere->SetPhiResolution(12);
  m.freePoints->SetPoints(m.freeLocations);
  m.freeActor->SetMapper(glyphMapper(m.freePoints, sphere));
  m.freeActor->GetProperty()->SetColor(0.85, 0.85, 0.88);

  vtkNew<vtkCubeSource> cube;
  cube->SetXLength(2.2 * radius);
  cube->SetYLength(2.2 * radius);
  cube->SetZLength(2.2 * radius);
  m.fixedPoints->SetPoints(m.fixedLocations);
  m.fixedActor->SetMapper(glyphMapper(m.fixedPoints, cube));
  m.fixedActor->GetProperty()->SetColor(0.25, 0.25, 0.28);

  vtkNew<vtkSphereSource> small;
  small->SetRadius(0.6 * radius);
  m.markers->SetPoints(m.markerLocations);
  m.markerActor->SetMapper(glyphMapper(m.markers, small));
  m.markerActor->GetProperty()->SetColor(0.30, 0.69, 0.31);

  vtkNew<vtkArrowSource> arrow;
  arrow->SetTipRadius(0.12);
  arrow->SetShaftRadius(0.04);
  m.vectorDirections->SetName("direction");
  m.vectorDirections->SetNumberOfComponents(3);
  m.vectors->SetPoints(m.vectorLocations);
  m.vectors->GetPointData()->AddArray(m.vectorDirections);
  auto arrowMapper = glyphMapper(m.vectors, arrow);
  arrowMapper->SetOrientationArray("direction");
  arrowMapper->SetOrientationModeToDirection();
  arrowMapper->SetScaleFactor(4.0 * radius);
  arrowMapper->SetScaleModeToNoDataScaling();
  arrowMapper->ScalingOn();
  m.vectorActor->SetMapper(arrowMapper);
  m.vectorActor->GetProperty()->SetColor(0.80, 0.22, 0.60);

  for (vtkActor* actor : {m.bodyActor.Get(), m.springActor.Get(), m.freeActor.Get(), m.fixedActor.Get(),
                          m.markerActor.Get(), m.vectorActor.Get()})
    vtk_->renderer->AddActor(actor);
  m.shown = true;
  updateConfiguration(model, q);
  if (fit) fitView();
}

void SceneView::updateConfiguration(const Model& model, const Eigen::VectorXd& q) {
  auto& m = vtk_->mech;
  if (!m.shown) return;
  const int np = static_cast<int>(model.spec().points.size());
  for (int i = 0; i < np; ++i) {
    const Eigen::Vector3d p = pointPosition(model, q, i);
    m.points->SetPoint(i, p.data());
  }
  for (int i = 0; i < static_cast<int>(model.markers().size()); ++i) {
    const Eigen::Vector3d p = markerPosition(model, q, i);
    m.points->SetPoint(np + i, p.data());
  }
  m.points->Modified();
  setPointsFrom(m.freeLocations, m.points, m.freeIndex);
  setPointsFrom(m.fixedLocations, m.points, m.fixedIndex);
  std::vector<int> markerIndex(model.markers().size());
  for (std::size_t i = 0; i < markerIndex.size(); ++i) markerIndex[i] = np + static_cast<int>(i);
  setPointsFrom(m.markerLocations, m.points, markerIndex);
  m.vectorLocations->SetNumberOfPoints(static_cast<vtkIdType>(m.vectorAt.size()));
  m.vectorDirections->SetNumberOfTuples(static_cast<vtkIdType>(m.vectorAt.size()));
  for (std::size_t k = 0; k < m.vectorAt.size(); ++k) {
    const Eigen::Vector3d u = vectorValue(model, q, m.vectorAt[k].first);
    m.vectorLocations->SetPoint(static_cast<vtkIdType>(k), m.points->GetPoint(m.vectorAt[k].second));
    m.vectorDirections->SetTuple(static_cast<vtkIdType>(k), u.data());
  }
  m.vectorLocations->Modified();
  m.vectorDirections->Modified();
  for (vtkPolyData* pd : {m.freePoints.Get(), m.fixedPoints.Get(), m.markers.Get(), m.bodies.Get(),
                          m.springs.Get(), m.vectors.Get()})
    pd->Modified();
  update();
}

void SceneView::clearMechanism() {
  auto& m = vtk_->mech;
  if (!m.shown) return;
  for (vtkActor* actor : {m.bodyActor.Get(), m.springActor.Get(), m.freeActor.Get(), m.fixedActor.Get(),
                          m.markerActor.Get(), m.vectorActor.Get()})
    vtk_->renderer->RemoveActor(actor);
  m.vectorAt.clear();
  m.shown = false;
  update();
}

void SceneView::fitView() {
  if (vtk_->mech.shown) {
    double bounds[6];
    vtk_->mech.points->GetBounds(bounds);
    vtk_->renderer->ResetCamera(bounds);
    vtk_->renderer->GetActiveCamera()->Zoom(0.95);
    update();
    return;
  }
  vtk_->renderer->ResetCamera();
  vtk_->renderer->GetActiveCamera()->Zoom(1.1);
  update();
}

void SceneView::setCameraPreset(CameraPreset preset) {
  auto* camera = vtk_->renderer->GetActiveCamera();
  camera->SetFocalPoint(0.0, 0.0, 0.0);
  switch (preset) {
    case CameraPreset::Front: camera->SetPosition(5.0, 0.0, 0.0); break;   // looking back along -x
    case CameraPreset::Side: camera->SetPosition(0.0, -5.0, 0.0); break;   // from the right
    case CameraPreset::Top: camera->SetPosition(0.0, 0.0, 5.0); break;
    case CameraPreset::Iso: camera->SetPosition(4.0, 3.0, 2.5); break;
  }
  camera->SetViewUp(preset == CameraPreset::Top ? 1.0 : 0.0, 0.0, preset == CameraPreset::Top ? 0.0 : 1.0);
  fitView();
}

void SceneView::forwardMouse(QMouseEvent* event, unsigned long vtkEvent) {
  const double ratio = devicePixelRatioF();
  const QPointF p = event->position() * ratio;
  auto& iren = *vtk_->interactor;
  iren.SetEventInformationFlipY(static_cast<int>(p.x()), static_cast<int>(p.y()),
                                (event->modifiers() & Qt::ControlModifier) ? 1 : 0,
                                (event->modifiers() & Qt::ShiftModifier) ? 1 : 0);
  iren.InvokeEvent(vtkEvent, nullptr);
  update();
}

void SceneView::mousePressEvent(QMouseEvent* event) {
  switch (event->button()) {
    case Qt::LeftButton: forwardMouse(event, vtkCommand::LeftButtonPressEvent); break;
    case Qt::MiddleButton: forwardMouse(event, vtkCommand::MiddleButtonPressEvent); break;
    case Qt::RightButton: forwardMouse(event, vtkCommand::RightButtonPressEvent); break;
    default: break;
  }
}

void SceneView::mouseReleaseEvent(QMouseEvent* event) {
  switch (event->button()) {
    case Qt::LeftButton: forwardMouse(event, vtkCommand::LeftButtonReleaseEvent); break;
    case Qt::MiddleButton: forwardMouse(event, vtkCommand::MiddleButtonReleaseEvent); break;
    case Qt::RightButton: forwardMouse(event, vtkCommand::RightButtonReleaseEvent); break;
    default: break;
  }
}

void SceneView::mouseMoveEvent(QMouseEvent* event) {
  // Only a drag changes the view; plain moves need no redraw.
  if (event->buttons() == Qt::NoButton) return;
  forwardMouse(event, vtkCommand::MouseMoveEvent);
}

void SceneView::wheelEvent(QWheelEvent* event) {
  const double ratio = devicePixelRatioF();
  const QPointF p = event->position() * ratio;
  auto& iren = *vtk_->interactor;
  iren.SetEventInformationFlipY(static_cast<int>(p.x()), static_cast<int>(p.y()));
  iren.InvokeEvent(event->angleDelta().y() > 0 ? vtkCommand::MouseWheelForwardEvent
                                               : vtkCommand::MouseWheelBackwardEvent,
                   nullptr);
  update();
}

void SceneView::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
    case Qt::Key_F: fitView(); break;
    case Qt::Key_1: setCameraPreset(CameraPreset::Front); break;
    case Qt::Key_2: setCameraPreset(CameraPreset::Side); break;
    case Qt::Key_3: setCameraPreset(CameraPreset::Top); break;
    case Qt::Key_0: setCameraPreset(CameraPreset::Iso); break;
    default: QOpenGLWidget::keyPressEvent(event); break;
  }
}

void SceneView::enterEvent(QEnterEvent* event) {
  vtk_->interactor->InvokeEvent(vtkCommand::EnterEvent, nullptr);
  QOpenGLWidget::enterEvent(event);
}

void SceneView::leaveEvent(QEvent* event) {
  vtk_->interactor->InvokeEvent(vtkCommand::LeaveEvent, nullptr);
  QOpenGLWidget::leaveEvent(event);
}

}  // namespace mbdrom::widgets
