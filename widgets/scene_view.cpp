#include "widgets/scene_view.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLExtraFunctions>
#include <QSurfaceFormat>
#include <QWheelEvent>

#include <vtkActor.h>
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

struct SceneView::Vtk {
  vtkNew<vtkGenericOpenGLRenderWindow> window;
  vtkNew<vtkGenericRenderWindowInteractor> interactor;
  vtkNew<vtkInteractorStyleTrackballCamera> style;
  vtkNew<vtkRenderer> renderer;
  vtkNew<vtkActor> grid;
  vtkNew<vtkAxesActor> axes;
  vtkNew<vtkAxesActor> orientationAxes;
  vtkNew<vtkOrientationMarkerWidget> orientation;
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

void SceneView::fitView() {
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
    case CameraPreset::Iso: camera->SetPosition(3.0, -4.0, 2.5); break;
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
