#include "app/main_window.h"

#include "app/job_runner.h"
#include "app/job_status_widget.h"
#include "engine/core/error.h"
#include "engine/core/version.h"
#include "engine/dynamics/mobility.h"
#include "engine/dynamics/modes.h"
#include "engine/dynamics/simulation.h"
#include "engine/dynamics/statics.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "widgets/log_view.h"
#include "widgets/scene_view.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QTreeWidget>

#include <algorithm>
#include <cmath>
#include <map>

namespace mbdrom::app {

namespace {
constexpr int kMaxRecent = 10;
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName("mainWindow");
  setWindowTitle(QStringLiteral("mbdrom"));
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);

  runner_ = new JobRunner(this);
  scene_ = new widgets::SceneView(this);
  setCentralWidget(scene_);

  createDocks();
  connect(modelTree_, &QTreeWidget::currentItemChanged, this,
          [this](QTreeWidgetItem* item, QTreeWidgetItem*) { showProperties(item); });
  createActions();
  createMenus();

  statusBar()->addPermanentWidget(new JobStatusWidget(runner_, this));
  statusBar()->showMessage(tr("Ready"), 3000);
  connect(runner_, &JobRunner::jobFinished, this,
          [this](int, const QString& title, JobRunner::Outcome outcome, const QString& message) {
            switch (outcome) {
              case JobRunner::Outcome::Succeeded: log_->info(tr("%1: done").arg(title)); break;
              case JobRunner::Outcome::Cancelled: log_->warning(tr("%1: cancelled").arg(title)); break;
              case JobRunner::Outcome::Failed: log_->error(tr("%1: %2").arg(title, message)); break;
            }
          });
  connect(runner_, &JobRunner::jobStarted, this, [this] { cancelJobAction_->setEnabled(true); });
  connect(runner_, &JobRunner::idle, this, [this] { cancelJobAction_->setEnabled(false); });

  readSettings();
  updateModelActions();
  log_->info(tr("mbdrom %1 (%2) started").arg(kVersion, kGitCommit));
}

MainWindow::~MainWindow() = default;

void MainWindow::createDocks() {
  modelTree_ = new QTreeWidget(this);
  modelTree_->setObjectName("modelTree");
  modelTree_->setHeaderLabels({tr("Element"), tr("Type")});
  modelTree_->header()->setStretchLastSection(true);
  modelDock_ = new QDockWidget(tr("Model"), this);
  modelDock_->setObjectName("modelDock");
  modelDock_->setWidget(modelTree_);
  addDockWidget(Qt::LeftDockWidgetArea, modelDock_);

  auto* properties = new QLabel(tr("Select an element in the model tree to see its properties."), this);
  properties->setObjectName("properties");
  properties->setTextInteractionFlags(Qt::TextSelectableByMouse);
  properties_ = properties;
  properties->setWordWrap(true);
  properties->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  properties->setMargin(8);
  propertiesDock_ = new QDockWidget(tr("Properties"), this);
  propertiesDock_->setObjectName("propertiesDock");
  propertiesDock_->setWidget(properties);
  addDockWidget(Qt::LeftDockWidgetArea, propertiesDock_);
  splitDockWidget(modelDock_, propertiesDock_, Qt::Vertical);

  log_ = new widgets::LogView(this);
  logDock_ = new QDockWidget(tr("Messages"), this);
  logDock_->setObjectName("logDock");
  logDock_->setWidget(log_);
  addDockWidget(Qt::BottomDockWidgetArea, logDock_);
  resizeDocks({modelDock_}, {280}, Qt::Horizontal);
  resizeDocks({logDock_}, {140}, Qt::Vertical);
}

void MainWindow::createActions() {
  openAction_ = new QAction(tr("&Open Model..."), this);
  openAction_->setShortcut(QKeySequence::Open);
  openAction_->setStatusTip(tr("Open a mechanism model file (.json)"));
  connect(openAction_, &QAction::triggered, this, &MainWindow::openModelDialog);

  reloadAction_ = new QAction(tr("Re&load Model"), this);
  reloadAction_->setShortcut(QKeySequence(Qt::Key_F5));
  connect(reloadAction_, &QAction::triggered, this, [this] { openModel(modelPath_); });

  infoAction_ = new QAction(tr("Mechanism &Information"), this);
  infoAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
  infoAction_->setStatusTip(tr("Coordinates, constraints, degrees of freedom and redundant constraints"));
  connect(infoAction_, &QAction::triggered, this, &MainWindow::showMechanismInfo);

  staticsAction_ = new QAction(tr("&Static Equilibrium"), this);
  staticsAction_->setStatusTip(tr("Solve the static equilibrium under the first load case and show it"));
  connect(staticsAction_, &QAction::triggered, this, &MainWindow::runStatics);

  modesAction_ = new QAction(tr("Linearised &Modes"), this);
  modesAction_->setStatusTip(tr("Natural frequencies and damping ratios about the static equilibrium"));
  connect(modesAction_, &QAction::triggered, this, &MainWindow::runModes);

  simulateAction_ = new QAction(tr("&Run Simulation..."), this);
  simulateAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  simulateAction_->setStatusTip(tr("Run the full (reference) model under a load case on a worker thread"));
  connect(simulateAction_, &QAction::triggered, this, &MainWindow::runSimulationDialog);

  playAction_ = new QAction(tr("&Play / Pause"), this);
  playAction_->setShortcut(QKeySequence(Qt::Key_Space));
  playAction_->setStatusTip(tr("Play the last simulation in real time"));
  connect(playAction_, &QAction::triggered, this, &MainWindow::togglePlayback);
  playTimer_ = new QTimer(this);
  playTimer_->setInterval(16);
  connect(playTimer_, &QTimer::timeout, this, &MainWindow::advancePlayback);

  quitAction_ = new QAction(tr("&Quit"), this);
  quitAction_->setShortcut(QKeySequence::Quit);
  connect(quitAction_, &QAction::triggered, this, &QWidget::close);

  cancelJobAction_ = new QAction(tr("&Cancel Running Job"), this);
  cancelJobAction_->setShortcut(Qt::Key_Escape);
  cancelJobAction_->setEnabled(false);
  connect(cancelJobAction_, &QAction::triggered, runner_, &JobRunner::cancel);
}

void MainWindow::createMenus() {
  fileMenu_ = menuBar()->addMenu(tr("&File"));
  fileMenu_->addAction(openAction_);
  auto* examples = fileMenu_->addMenu(tr("Open &Example"));
  const QDir dir(examplesDir());
  for (const QString& file : dir.entryList({"*.json"}, QDir::Files, QDir::Name)) {
    const QString path = dir.filePath(file);
    connect(examples->addAction(QFileInfo(file).completeBaseName()), &QAction::triggered, this,
            [this, path] { openModel(path); });
  }
  examples->setEnabled(!examples->isEmpty());
  recentMenu_ = fileMenu_->addMenu(tr("Open &Recent"));
  fileMenu_->addAction(reloadAction_);
  fileMenu_->addSeparator();
  fileMenu_->addAction(quitAction_);
  updateRecentMenu();

  editMenu_ = menuBar()->addMenu(tr("&Edit"));
  modelMenu_ = menuBar()->addMenu(tr("&Model"));
  modelMenu_->addAction(infoAction_);
  modelMenu_->addAction(staticsAction_);
  modelMenu_->addAction(modesAction_);
  simulateMenu_ = menuBar()->addMenu(tr("&Simulate"));
  simulateMenu_->addAction(simulateAction_);
  simulateMenu_->addAction(playAction_);
  simulateMenu_->addSeparator();
  simulateMenu_->addAction(cancelJobAction_);
  trainMenu_ = menuBar()->addMenu(tr("&Train"));

  viewMenu_ = menuBar()->addMenu(tr("&View"));
  viewMenu_->addAction(modelDock_->toggleViewAction());
  viewMenu_->addAction(propertiesDock_->toggleViewAction());
  viewMenu_->addAction(logDock_->toggleViewAction());
  viewMenu_->addSeparator();
  using Preset = widgets::SceneView::CameraPreset;
  const struct {
    const char* text;
    Preset preset;
    Qt::Key key;
  } presets[] = {{"&Isometric", Preset::Iso, Qt::Key_0},
                 {"&Front", Preset::Front, Qt::Key_1},
                 {"&Side", Preset::Side, Qt::Key_2},
                 {"&Top", Preset::Top, Qt::Key_3}};
  auto* cameraMenu = viewMenu_->addMenu(tr("&Camera"));
  for (const auto& p : presets) {
    auto* action = cameraMenu->addAction(tr(p.text));
    action->setShortcut(QKeySequence(Qt::CTRL | p.key));
    const Preset preset = p.preset;
    connect(action, &QAction::triggered, this, [this, preset] { scene_->setCameraPreset(preset); });
  }
  auto* fit = viewMenu_->addAction(tr("&Fit View"));
  fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F));
  connect(fit, &QAction::triggered, scene_, &widgets::SceneView::fitView);

  helpMenu_ = menuBar()->addMenu(tr("&Help"));
  connect(helpMenu_->addAction(tr("&About mbdrom")), &QAction::triggered, this, &MainWindow::about);
  connect(helpMenu_->addAction(tr("About &Qt")), &QAction::triggered, qApp, &QApplication::aboutQt);
}

void MainWindow::about() {
  QMessageBox::about(
      this, tr("About mbdrom"),
      tr("<h3>mbdrom %1</h3>"
         "<p>Workbench for data-driven reduced-order modelling of multibody mechanisms: "
         "build a mechanism, simulate it, train reduced models (auto-encoder, local PCA, "
         "neural ODE, SINDy) and compare them with the full model.</p>"
         "<p>Build %2 · Qt %3</p><p>BSD-3-Clause licence.</p>")
          .arg(kVersion, kGitCommit, qVersion()));
}

QStringList MainWindow::recentFiles() const {
  return QSettings().value("recentFiles").toStringList();
}

void MainWindow::addRecentFile(const QString& path) {
  QStringList files = recentFiles();
  const QString absolute = QFileInfo(path).absoluteFilePath();
  files.removeAll(absolute);
  files.prepend(absolute);
  while (files.size() > kMaxRecent) files.removeLast();
  QSettings().setValue("recentFiles", files);
  updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
  recentMenu_->clear();
  const QStringList files = recentFiles();
  for (int i = 0; i < files.size(); ++i) {
    auto* action = recentMenu_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(files[i]).fileName()));
    action->setToolTip(files[i]);
    action->setData(files[i]);
    const QString path = files[i];
    connect(action, &QAction::triggered, this, [this, path] { openModel(path); });
  }
  recentMenu_->setEnabled(!files.isEmpty());
  if (!files.isEmpty()) {
    recentMenu_->addSeparator();
    connect(recentMenu_->addAction(tr("Clear List")), &QAction::triggered, this, [this] {
      QSettings().remove("recentFiles");
      updateRecentMenu();
    });
  }
}

QString MainWindow::examplesDir() {
  const QStringList candidates = {
      qEnvironmentVariable("MBDROM_EXAMPLES_DIR"),
      QCoreApplication::applicationDirPath() + "/../share/mbdrom/examples",
      QStringLiteral(MBDROM_SOURCE_DIR "/resources/examples"),
  };
  for (const QString& dir : candidates)
    if (!dir.isEmpty() && QDir(dir).exists()) return QDir(dir).canonicalPath();
  return {};
}

void MainWindow::openModelDialog() {
  const QString start = modelPath_.isEmpty() ? examplesDir() : QFileInfo(modelPath_).absolutePath();
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open Model"), start, tr("mbdrom models (*.json);;All files (*)"));
  if (!path.isEmpty()) openModel(path);
}

bool MainWindow::openModel(const QString& path) {
  try {
    auto model = std::make_shared<const Model>(readModel(path.toStdString()));
    model_ = std::move(model);
    modelPath_ = QFileInfo(path).absoluteFilePath();
  } catch (const Error& e) {
    log_->error(QString::fromStdString(e.what()));
    showMessage(QMessageBox::Warning, tr("Cannot open model"), QString::fromStdString(e.what()));
    return false;
  }
  setWindowTitle(tr("%1 — mbdrom").arg(QString::fromStdString(model_->spec().name)));
  playTimer_->stop();
  playback_.reset();
  populateModelTree();
  scene_->showMechanism(*model_, model_->q0());
  addRecentFile(modelPath_);
  updateModelActions();
  const MobilityReport r = analyzeMobility(*model_, model_->q0());
  log_->info(tr("Opened %1: %2 coordinates, %3 constraints, %4 degree(s) of freedom%5")
                 .arg(QFileInfo(path).fileName())
                 .arg(r.nq)
                 .arg(r.nc)
                 .arg(r.dof)
                 .arg(r.redundantRows.empty() ? QString() : tr(", %1 redundant").arg(r.redundantRows.size())));
  return true;
}

void MainWindow::showMessage(QMessageBox::Icon icon, const QString& title, const QString& text) {
  // Window-modal but non-blocking: no nested event loop.
  auto* box = new QMessageBox(icon, title, text, QMessageBox::Ok, this);
  box->setObjectName("messageBox");
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

void MainWindow::updateModelActions() {
  const bool haveModel = model_ != nullptr;
  for (QAction* a : {reloadAction_, infoAction_, staticsAction_, modesAction_, simulateAction_}) a->setEnabled(haveModel);
  playAction_->setEnabled(haveModel && playback_ != nullptr);
}

void MainWindow::populateModelTree() {
  modelTree_->clear();
  if (!model_) return;
  const ModelSpec& s = model_->spec();
  // Which spec entry an item shows: kind and index within its list.
  std::map<std::string, int> counters;
  auto tag = [&counters](QTreeWidgetItem* item, const char* kind) {
    item->setData(0, Qt::UserRole, QString::fromLatin1(kind));
    item->setData(0, Qt::UserRole + 1, counters[kind]++);
  };
  auto* root = new QTreeWidgetItem(modelTree_, {QString::fromStdString(s.name), tr("mechanism")});
  root->setToolTip(0, QString::fromStdString(s.description));
  auto group = [&](const QString& title, int count) {
    auto* item = new QTreeWidgetItem(root, {title, QString::number(count)});
    item->setExpanded(count > 0 && count <= 12);
    return item;
  };
  auto vec = [](const Eigen::Vector3d& v) {
    return QStringLiteral("(%1, %2, %3)").arg(v.x(), 0, 'g', 6).arg(v.y(), 0, 'g', 6).arg(v.z(), 0, 'g', 6);
  };
  auto* points = group(tr("Points"), static_cast<int>(s.points.size()));
  for (const auto& p : s.points) {
    auto* item = new QTreeWidgetItem(points, {QString::fromStdString(p.name), p.fixed ? tr("fixed point") : tr("point")});
    tag(item, "point");
    item->setToolTip(0, vec(p.position) + " m");
  }
  auto* vectors = group(tr("Vectors"), static_cast<int>(s.vectors.size()));
  for (const auto& v : s.vectors) {
    auto* item = new QTreeWidgetItem(vectors, {QString::fromStdString(v.name), v.fixed ? tr("fixed vector") : tr("unit vector")});
    tag(item, "vector");
    item->setToolTip(0, vec(v.direction));
  }
  auto* bodies = group(tr("Bodies"), static_cast<int>(s.bodies.size()));
  for (const auto& b : s.bodies) {
    auto* item = new QTreeWidgetItem(bodies, {QString::fromStdString(b.name), QString::fromLatin1(bodyTypeName(b.type))});
    tag(item, "body");
    item->setToolTip(0, tr("mass %1 kg").arg(b.mass));
    for (const auto& m : b.markers) new QTreeWidgetItem(item, {QString::fromStdString(m.name), tr("marker")});
  }
  auto* joints = group(tr("Joints"), static_cast<int>(s.joints.size()));
  for (const auto& j : s.joints)
    tag(new QTreeWidgetItem(joints, {QString::fromStdString(j.name), QString::fromLatin1(jointTypeName(j.type))}), "joint");
  auto* drivers = group(tr("Drivers"), static_cast<int>(s.drivers.size()));
  for (const auto& d : s.drivers)
    new QTreeWidgetItem(drivers, {QString::fromStdString(d.name), QString::fromLatin1(driverTypeName(d.type))});
  auto* forces = group(tr("Forces"), static_cast<int>(s.springDampers.size() + s.frictions.size()));
  for (const auto& f : s.springDampers)
    tag(new QTreeWidgetItem(forces, {QString::fromStdString(f.name), tr("spring-damper")}), "spring");
  for (const auto& f : s.frictions) new QTreeWidgetItem(forces, {QString::fromStdString(f.name), tr("friction")});
  auto* loads = group(tr("Load cases"), static_cast<int>(s.loadCases.size()));
  for (const auto& lc : s.loadCases)
    new QTreeWidgetItem(loads, {QString::fromStdString(lc.name), tr("%n load(s)", nullptr, static_cast<int>(lc.loads.size()))});
  root->setExpanded(true);
  modelTree_->resizeColumnToContents(0);
}

void MainWindow::showProperties(QTreeWidgetItem* item) {
  if (!model_ || !item || !item->data(0, Qt::UserRole).isValid()) {
    properties_->setText(tr("Select an element in the model tree to see its properties."));
    return;
  }
  const ModelSpec& s = model_->spec();
  const QString kind = item->data(0, Qt::UserRole).toString();
  const auto i = static_cast<std::size_t>(item->data(0, Qt::UserRole + 1).toInt());
  auto vec = [](const Eigen::Vector3d& v) {
    return QStringLiteral("(%1, %2, %3)").arg(v.x(), 0, 'g', 6).arg(v.y(), 0, 'g', 6).arg(v.z(), 0, 'g', 6);
  };
  auto str = [](const std::string& t) { return QString::fromStdString(t).toHtmlEscaped(); };
  auto list = [&](const std::vector<std::string>& names) {
    QStringList out;
    for (const auto& n : names) out << str(n);
    return out.join(", ");
  };
  QList<QPair<QString, QString>> rows;
  if (kind == "point") {
    const auto& p = s.points[i];
    rows = {{tr("point"), str(p.name)}, {tr("position"), vec(p.position) + " m"}, {tr("fixed"), p.fixed ? tr("yes") : tr("no")}};
  } else if (kind == "vector") {
    const auto& v = s.vectors[i];
    rows = {{tr("unit vector"), str(v.name)}, {tr("direction"), vec(v.direction)}, {tr("fixed"), v.fixed ? tr("yes") : tr("no")}};
  } else if (kind == "body") {
    const auto& b = s.bodies[i];
    rows = {{tr("body"), str(b.name)}, {tr("type"), QString::fromLatin1(bodyTypeName(b.type))},
            {tr("points"), list(b.points)}, {tr("vectors"), list(b.vectors)},
            {tr("mass"), QString::number(b.mass, 'g', 6) + " kg"}, {tr("centre of mass"), vec(b.com) + " m"}};
    if (b.type == BodyType::Rigid)
      for (int r = 0; r < 3; ++r)
        rows.append({r == 0 ? tr("inertia (about COM, kg m²)") : QString(), vec(b.inertia.row(r).transpose())});
  } else if (kind == "joint") {
    const auto& j = s.joints[i];
    rows = {{tr("joint"), str(j.name)}, {tr("type"), QString::fromLatin1(jointTypeName(j.type))},
            {tr("bodies"), str(j.body1) + " – " + str(j.body2)}, {tr("points"), str(j.point1) + ", " + str(j.point2)},
            {tr("axes"), str(j.axis1) + ", " + str(j.axis2)}};
  } else if (kind == "spring") {
    const auto& f = s.springDampers[i];
    QStringList k;
    for (double c : f.stiffness) k << QString::number(c, 'g', 6);
    rows = {{tr("spring-damper"), str(f.name)}, {tr("points"), str(f.point1) + " – " + str(f.point2)},
            {tr("free length"), QString::number(f.freeLength, 'g', 8) + " m"},
            {tr("stiffness coefficients"), k.join(", ") + tr(" (N/m, N/m², …)")},
            {tr("damping"), QString::number(f.damping, 'g', 6) + " N s/m"}};
  }
  QString html = "<table cellspacing=3>";
  for (const auto& [key, value] : rows) html += "<tr><td><b>" + key + "</b></td><td>" + value + "</td></tr>";
  properties_->setText(html + "</table>");
}

void MainWindow::showMechanismInfo() {
  if (!model_) return;
  const MobilityReport r = analyzeMobility(*model_, model_->q0());
  QString text = tr("<b>%1</b><br>mechanism hash %2<br><br>"
                    "coordinates: %3<br>constraints: %4<br>rank of Φ<sub>q</sub>: %5<br>"
                    "degrees of freedom: <b>%6</b><br>redundant constraints: %7")
                     .arg(QString::fromStdString(model_->spec().name).toHtmlEscaped(),
                          QString::fromStdString(hashToString(model_->mechanismHash())))
                     .arg(r.nq)
                     .arg(r.nc)
                     .arg(r.rank)
                     .arg(r.dof)
                     .arg(r.redundantRows.size());
  for (const auto& label : r.redundantLabels) text += "<br>&nbsp;&nbsp;" + QString::fromStdString(label).toHtmlEscaped();
  if (r.dof == 0) text += tr("<br><br><b>The mechanism is locked (0 degrees of freedom).</b>");
  showMessage(QMessageBox::Information, tr("Mechanism information"), text);
}

void MainWindow::runStatics() {
  if (!model_) return;
  auto model = model_;
  const int loadCase = model->spec().loadCases.empty() ? -1 : 0;
  auto result = std::make_shared<StaticsResult>();
  const QString title = tr("Static equilibrium (%1)")
                            .arg(loadCase < 0 ? tr("gravity only") : QString::fromStdString(model->spec().loadCases[0].name));
  runner_->submit(
      title, [model, loadCase, result](Monitor& monitor) { *result = solveStatics(*model, loadCase, model->q0(), {}, &monitor); },
      [this, model, result](JobRunner::Outcome outcome, const QString&) {
        if (outcome != JobRunner::Outcome::Succeeded || model != model_) return;
        scene_->updateConfiguration(*model, result->q);
        log_->info(tr("Static equilibrium: %1 Newton iterations, residual force %2 N")
                       .arg(result->iterations)
                       .arg(result->forceResidual, 0, 'g', 3));
      });
}

void MainWindow::runModes() {
  if (!model_) return;
  auto model = model_;
  const int loadCase = model->spec().loadCases.empty() ? -1 : 0;
  auto result = std::make_shared<ModesResult>();
  runner_->submit(
      tr("Linearised modes"),
      [model, loadCase, result](Monitor& monitor) {
        const StaticsResult s = solveStatics(*model, loadCase, model->q0(), {}, &monitor);
        *result = computeModes(*model, loadCase, s);
      },
      [this, model, result](JobRunner::Outcome outcome, const QString&) {
        if (outcome != JobRunner::Outcome::Succeeded || model != model_) return;
        for (std::size_t k = 0; k < result->modes.size(); ++k)
          log_->info(tr("Mode %1: %2 Hz, damping ratio %3")
                         .arg(k + 1)
                         .arg(result->modes[k].frequency, 0, 'g', 6)
                         .arg(result->modes[k].dampingRatio, 0, 'g', 4));
      });
}

void MainWindow::runSimulationDialog() {
  if (!model_) return;
  QDialog dialog(this);
  dialog.setWindowTitle(tr("Run Simulation"));
  auto* form = new QFormLayout(&dialog);
  auto* loadCase = new QComboBox(&dialog);
  loadCase->addItem(tr("gravity only"), -1);
  for (std::size_t i = 0; i < model_->spec().loadCases.size(); ++i)
    loadCase->addItem(QString::fromStdString(model_->spec().loadCases[i].name), static_cast<int>(i));
  if (loadCase->count() > 1) loadCase->setCurrentIndex(1);
  auto spin = [&](double value, double lo, double hi, int decimals, const QString& suffix, const QString& tip) {
    auto* box = new QDoubleSpinBox(&dialog);
    box->setRange(lo, hi);
    box->setDecimals(decimals);
    box->setValue(value);
    box->setSuffix(suffix);
    box->setToolTip(tip);
    return box;
  };
  auto* tEnd = spin(5.0, 0.001, 1e6, 3, " s", tr("Simulated time"));
  auto* dt = spin(1.0, 0.001, 100.0, 3, " ms", tr("Fixed time step of the implicit integrator"));
  auto* outDt = spin(10.0, 0.001, 1000.0, 3, " ms", tr("Time between stored samples"));
  form->addRow(tr("Load case"), loadCase);
  form->addRow(tr("End time"), tEnd);
  form->addRow(tr("Time step"), dt);
  form->addRow(tr("Output interval"), outDt);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  form->addRow(buttons);
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  if (dialog.exec() != QDialog::Accepted) return;

  SimulationOptions options;
  options.loadCase = loadCase->currentData().toInt();
  options.tEnd = tEnd->value();
  options.integrator.dt = dt->value() * 1e-3;
  options.outputDt = outDt->value() * 1e-3;
  runSimulation(options);
}

int MainWindow::runSimulation(const SimulationOptions& options) {
  if (!model_) return -1;
  auto model = model_;
  const QString caseName = options.loadCase < 0 ? tr("gravity only")
                                                : QString::fromStdString(model->spec().loadCases[static_cast<std::size_t>(options.loadCase)].name);
  auto recorder = std::make_shared<TrajectoryRecorder>();
  auto summary = std::make_shared<SimulationSummary>();
  const QString title = tr("Simulate %1 (%2, %3 s)").arg(QString::fromStdString(model->spec().name), caseName)
                            .arg(options.tEnd);
  return runner_->submit(
      title, [model, options, recorder, summary](Monitor& m) { simulate(*model, options, *recorder, &m, summary.get()); },
      [this, model, recorder, summary](JobRunner::Outcome outcome, const QString&) {
        if (model != model_ || recorder->samples().empty()) return;
        // Cancelled and failed runs keep what was computed: it can be played too.
        auto playback = std::make_shared<Playback>();
        for (const Sample& s : recorder->samples()) {
          playback->t.push_back(s.t);
          playback->q.push_back(s.q);
        }
        playback_ = std::move(playback);
        updateModelActions();
        log_->info(tr("%1 steps, %2 s of motion in %3 s wall time (%4x real time), max |Phi| %5%6")
                       .arg(summary->steps)
                       .arg(summary->tEnd)
                       .arg(summary->wallSeconds, 0, 'g', 3)
                       .arg(summary->realTimeFactor, 0, 'g', 3)
                       .arg(summary->maxResidualPosition, 0, 'g', 2)
                       .arg(outcome == JobRunner::Outcome::Succeeded ? QString() : tr(" (partial run kept)")));
        playStart_ = 0.0;
        togglePlayback();
      });
}

void MainWindow::togglePlayback() {
  if (!playback_ || !model_) return;
  if (playTimer_->isActive()) {
    playTimer_->stop();
    return;
  }
  playClock_.start();
  playTimer_->start();
}

void MainWindow::advancePlayback() {
  if (!playback_ || !model_) {
    playTimer_->stop();
    return;
  }
  const auto& pb = *playback_;
  const double t = pb.t.front() + std::fmod(playStart_ + static_cast<double>(playClock_.elapsed()) * 1e-3,
                                            std::max(1e-9, pb.t.back() - pb.t.front()));
  const auto it = std::upper_bound(pb.t.begin(), pb.t.end(), t);
  const auto k = static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, (it - pb.t.begin()) - 1));
  scene_->updateConfiguration(*model_, pb.q[k]);
  statusBar()->showMessage(tr("t = %1 s").arg(pb.t[k], 0, 'f', 3));
}

void MainWindow::readSettings() {
  QSettings settings;
  if (!restoreGeometry(settings.value("window/geometry").toByteArray())) resize(1280, 800);
  restoreState(settings.value("window/state").toByteArray());
}

void MainWindow::writeSettings() const {
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (runner_->busy()) {
    const auto answer = QMessageBox::question(
        this, tr("Job running"),
        tr("\"%1\" is still running. Cancel it and quit?").arg(runner_->currentTitle()),
        QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
    if (answer != QMessageBox::Yes) {
      event->ignore();
      return;
    }
    runner_->cancelAllAndWait();
  }
  writeSettings();
  event->accept();
}

}  // namespace mbdrom::app
