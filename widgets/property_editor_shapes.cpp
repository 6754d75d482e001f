// The display shapes of a body in the property editor: type, size, mesh file,
// placement in reference coordinates, colour and opacity, one group per shape.
#include "widgets/property_editor.h"

#include "engine/core/error.h"
#include "engine/geometry/shape_mesh.h"
#include "engine/model/body_shape.h"
#include "engine/project/project.h"
#include "widgets/number_text.h"

#include <QAbstractButton>
#include <QColorDialog>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QLineEdit>
#include <QPixmap>
#include <QPushButton>
#include <QToolButton>

#include <cmath>

namespace mbdrom::widgets {

namespace {

QString colourText(const std::optional<Eigen::Vector3d>& rgb) {
  if (!rgb) return {};
  return QColor::fromRgbF(static_cast<float>((*rgb)[0]), static_cast<float>((*rgb)[1]),
                          static_cast<float>((*rgb)[2]))
      .name();
}

// "#rrggbb", a colour name ("steelblue"), or empty for the default.
std::optional<Eigen::Vector3d> parseColour(const QString& text) {
  if (text.trimmed().isEmpty()) return std::nullopt;
  const QColor c = QColor::fromString(text.trimmed());
  if (!c.isValid())
    throw InputError("\"" + text.toStdString() + "\" is not a colour (#rrggbb or a name such as steelblue)");
  return Eigen::Vector3d(c.redF(), c.greenF(), c.blueF());
}

QIcon swatch(const std::optional<Eigen::Vector3d>& rgb) {
  const Eigen::Vector3d c = rgb.value_or(kDefaultShapeColour);
  QPixmap pixmap(16, 16);
  pixmap.fill(QColor::fromRgbF(static_cast<float>(c[0]), static_cast<float>(c[1]), static_cast<float>(c[2])));
  return QIcon(pixmap);
}

// A field row: a line edit named KEY_value that takes the width, and `button` after it.
QLineEdit* lineWithButton(QWidget* box, const QString& key, QAbstractButton* button) {
  auto* h = new QHBoxLayout(box);
  h->setContentsMargins(0, 0, 0, 0);
  auto* edit = new QLineEdit(box);
  edit->setObjectName(key + "_value");
  h->addWidget(edit, 1);
  h->addWidget(button);
  return edit;
}

}  // namespace

void PropertyEditor::addColour(const QString& key, const QString& label,
                               std::function<std::optional<Eigen::Vector3d>(const ModelSpec&)> get,
                               std::function<void(ModelSpec&, const std::optional<Eigen::Vector3d>&)> set) {
  auto* box = new QWidget(form_);
  auto* pick = new QToolButton(box);
  pick->setObjectName(key + "_pick");
  auto* edit = lineWithButton(box, key, pick);
  edit->setPlaceholderText(tr("default"));
  edit->setToolTip(tr("#rrggbb or a colour name; empty: the default grey"));
  pick->setToolTip(tr("Choose a colour"));
  Field f{key, box, addRow(label, box, key), [edit, pick, get](const ModelSpec& s) {
            const auto rgb = get(s);
            if (!edit->hasFocus() || !edit->isModified()) edit->setText(colourText(rgb));
            edit->setModified(false);
            pick->setIcon(swatch(rgb));
          }};
  f.refresh(spec_);
  fields_.push_back(f);
  connect(edit, &QLineEdit::editingFinished, this, [this, edit, key, label, set] {
    if (!edit->isModified()) return;
    edit->setModified(false);
    const QString text = edit->text();
    propose(key, label.toLower(), [&](ModelSpec& s) { set(s, parseColour(text)); });
  });
  connect(pick, &QToolButton::clicked, this, [this, key, label, get, set] {
    const Eigen::Vector3d now = get(spec_).value_or(kDefaultShapeColour);
    const QColor c = QColorDialog::getColor(
        QColor::fromRgbF(static_cast<float>(now[0]), static_cast<float>(now[1]), static_cast<float>(now[2])),
        this, label);
    if (!c.isValid()) return;
    propose(key, label.toLower(),
            [&](ModelSpec& s) { set(s, Eigen::Vector3d(c.redF(), c.greenF(), c.blueF())); });
  });
}

void PropertyEditor::addShapes(int body) {
  const auto i = static_cast<std::size_t>(body);
  auto shapeAt = [i](ModelSpec& s, std::size_t k) -> ShapeSpec& { return s.bodies.at(i).shapes.at(k); };
  auto shapeOf = [i](const ModelSpec& s, std::size_t k) -> const ShapeSpec& {
    return s.bodies.at(i).shapes.at(k);
  };
  const std::vector<ShapeSpec>& shapes = spec_.bodies[i].shapes;
  auto* heading = new QLabel(
      shapes.empty()
          ? tr("<b>Shapes</b> — none: drawn as its points and lines")
          : tr("<b>Shapes</b> — for display; placed in reference coordinates, they move with the body"),
      form_);
  heading->setWordWrap(true);
  layout_->addRow(heading);
  QStringList types;
  for (const char* t : kShapeTypes) types << QString::fromLatin1(t);
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    const QString p = QStringLiteral("shape%1.").arg(k + 1);
    const ShapeSpec& shape = shapes[k];
    addChoice(
        p + "type", tr("Shape %1").arg(k + 1), types, [=](const ModelSpec& s) { return shapeOf(s, k).type; },
        [=](ModelSpec& s, const std::string& v) {
          ShapeSpec& sh = shapeAt(s, k);
          if (v == "mesh" && sh.file.empty())
            throw InputError("give the mesh file first (File, below): the shape becomes a mesh with it");
          sh = convertedShape(sh, v);
        });
    if (shape.type != "mesh") {
      QStringList names;
      for (const auto& n : shapeSizeNames(shape.type)) names << QString::fromStdString(n);
      addNumberList(
          p + "size", tr("Size (%1)").arg(names.join(", ")), QStringLiteral("m"),
          [=](const ModelSpec& s) { return shapeOf(s, k).size; },
          [=](ModelSpec& s, const std::vector<double>& v) { shapeAt(s, k).size = v; });
    }
    addMeshFile(p + "file", k, body);
    if (shape.type == "mesh")
      addNumber(
          p + "scale", tr("Scale"), tr("m per unit"), [=](const ModelSpec& s) { return shapeOf(s, k).scale; },
          [=](ModelSpec& s, double v) { shapeAt(s, k).scale = v; });
    addVector(
        p + "center", tr("Centre"), QStringLiteral("m"),
        [=](const ModelSpec& s) { return shapeOf(s, k).center; },
        [=](ModelSpec& s, const Eigen::Vector3d& v) { shapeAt(s, k).center = v; });
    addVector(
        p + "axis", tr("Axis (its z)"), QStringLiteral("–"),
        [=](const ModelSpec& s) { return shapeOf(s, k).axis; },
        [=](ModelSpec& s, const Eigen::Vector3d& v) {
          if (!(v.norm() > 0.0)) throw InputError("an axis cannot be zero");
          shapeAt(s, k).axis = v.normalized();
        });
    addNumber(
        p + "angle", tr("Turn about axis"), QStringLiteral("°"),
        [=](const ModelSpec& s) { return shapeOf(s, k).angle; },
        [=](ModelSpec& s, double v) { shapeAt(s, k).angle = v; });
    addColour(
        p + "colour", tr("Colour"), [=](const ModelSpec& s) { return shapeOf(s, k).colour; },
        [=](ModelSpec& s, const std::optional<Eigen::Vector3d>& v) { shapeAt(s, k).colour = v; });
    addNumber(
        p + "opacity", tr("Opacity"), tr("0–1"), [=](const ModelSpec& s) { return shapeOf(s, k).opacity; },
        [=](ModelSpec& s, double v) { shapeAt(s, k).opacity = v; });
    auto* remove = new QPushButton(tr("Remove shape %1").arg(k + 1), form_);
    connect(remove, &QPushButton::clicked, this, [this, p, i, k] {
      propose(p + "type", tr("shape removal"), [&](ModelSpec& s) {
        auto& list = s.bodies.at(i).shapes;
        list.erase(list.begin() + static_cast<std::ptrdiff_t>(k));
      });
    });
    fields_.push_back({p + "remove", remove, addRow(QString(), remove, p + "remove"), nullptr});
  }
  auto* add = new QPushButton(tr("Add Shape"), form_);
  add->setToolTip(tr("A shape that fits the body (a rod along a bar, a box around a rigid body's points)"));
  connect(add, &QPushButton::clicked, this, [this, body] {
    propose("shape_add", tr("new shape"), [&](ModelSpec& s) {
      s.bodies.at(static_cast<std::size_t>(body)).shapes.push_back(defaultShape(s, body));
    });
  });
  fields_.push_back({"shape_add", add, addRow(QString(), add, "shape_add"), nullptr});
}

void PropertyEditor::addMeshFile(const QString& key, std::size_t k, int body) {
  const auto i = static_cast<std::size_t>(body);
  auto* box = new QWidget(form_);
  auto* browse = new QPushButton(tr("Browse..."), box);
  browse->setObjectName(key + "_browse");
  auto* edit = lineWithButton(box, key, browse);
  edit->setPlaceholderText(tr("STL or OBJ file: makes it a mesh"));
  edit->setToolTip(tr("Relative to the model file (or project); STL has no units: set Scale"));
  Field f{key, box, addRow(tr("File"), box, key), [edit, i, k](const ModelSpec& s) {
            if (!edit->hasFocus() || !edit->isModified())
              edit->setText(QString::fromStdString(s.bodies.at(i).shapes.at(k).file));
            edit->setModified(false);
          }};
  f.refresh(spec_);
  fields_.push_back(f);
  auto setFile = [this, key, i, k](const QString& file, bool picked) {
    propose(key, tr("mesh file"), [&](ModelSpec& s) {
      ShapeSpec& sh = s.bodies.at(i).shapes.at(k);
      if (file.trimmed().isEmpty()) {
        if (sh.type == "mesh")
          throw InputError("a mesh shape needs its file; choose another type to drop it");
        return;
      }
      if (sh.type != "mesh") sh = convertedShape(sh, "mesh");
      sh.file = file.trimmed().toStdString();
      // A project reads only its own files: a mesh picked from elsewhere is copied in.
      if (picked && !s.confineTo.empty()) {
        try {
          (void)resolveShapeFile(s, sh.file);
        } catch (const FileError&) {
          sh.file = importMeshFile(s.confineTo, sh.file);
        }
      }
    });
  };
  connect(edit, &QLineEdit::editingFinished, this, [edit, setFile] {
    if (!edit->isModified()) return;
    edit->setModified(false);
    setFile(edit->text(), false);
  });
  connect(browse, &QPushButton::clicked, this, [this, setFile] {
    const QString dir = QString::fromStdString(spec_.directory);
    const QString file = QFileDialog::getOpenFileName(this, tr("Mesh File"), dir,
                                                      tr("Meshes (*.stl *.STL *.obj *.OBJ);;All files (*)"));
    if (!file.isEmpty()) setFile(file, true);
  });
}

}  // namespace mbdrom::widgets
