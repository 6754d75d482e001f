// The workbench is driven by the method registry: a method registered before
// the window is made appears in the Train menu with its authors, and its
// training dialog shows the fields of its settings schema with its defaults.

#include "app/main_window.h"
#include "app/project_document.h"
#include "app/train_dialog.h"
#include "engine/core/error.h"
#include "engine/rom/method_registry.h"

#include <catch2/catch.hpp>

#include <QAction>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>

using mbdrom::app::MainWindow;
using OJson = nlohmann::ordered_json;

namespace {

mbdrom::MethodInfo echoMethod() {
  mbdrom::MethodInfo m;
  m.name = "echo_gui";
  m.displayName = "echo";
  m.authors = "Doe, Roe";
  m.summary = "A test method that is never trained.";
  m.group = 1;
  m.settingsSchema = {{"rank", "Rank r", mbdrom::SettingKind::Integer, "Modes kept"}};
  m.checkSettings = [](const OJson& s) {
    OJson out{{"rank", 3}};
    for (const auto& [k, v] : s.items()) {
      if (k != "rank") throw mbdrom::InputError("echo: unknown setting \"" + k + "\"");
      out[k] = v;
    }
    return out;
  };
  m.train = [](const mbdrom::Dataset&, const OJson&, mbdrom::Monitor&,
               const mbdrom::Model*) -> std::unique_ptr<mbdrom::ReducedModel> {
    throw mbdrom::InputError("echo is never trained");
  };
  m.load = [](const OJson&, const std::string&) -> std::unique_ptr<mbdrom::ReducedModel> {
    throw mbdrom::FileError("echo has no files");
  };
  return m;
}

}  // namespace

TEST_CASE(
    "a method registered before the window is made is in the Train menu and its dialog shows its schema") {
  auto& registry = mbdrom::MethodRegistry::global();
  if (!registry.find("echo_gui")) registry.add(echoMethod());
  MainWindow window;
  window.show();
  QAction* action = window.trainAction("echo_gui");
  REQUIRE(action != nullptr);
  CHECK(action->text() == "Echo...");
  CHECK(action->statusTip().startsWith("echo (Doe, Roe): A test method"));
  QMenu* train = nullptr;
  for (QAction* a : window.menuBar()->actions())
    if (a->text().remove('&') == "Train") train = a->menu();
  REQUIRE(train != nullptr);
  CHECK(train->actions().contains(action));

  REQUIRE(window.openModel(QStringLiteral(MBDROM_SOURCE_DIR "/resources/examples/pendulum.json")));
  CHECK(action->isEnabled());
  mbdrom::app::TrainDialog dialog("echo_gui", *window.document(), OJson::object(), "echo", &window);
  CHECK(dialog.windowTitle().contains("echo (Doe, Roe)"));
  auto* rank = qobject_cast<QLineEdit*>(dialog.editor("rank"));
  REQUIRE(rank != nullptr);
  CHECK(rank->text() == "3");  // the method's default
  CHECK(rank->toolTip().contains("Modes kept"));
}
