#include "widgets/property_editor.h"

#include "engine/core/error.h"
#include "widgets/function_preview.h"
#include "widgets/number_text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QScrollBar>
#include <QTimer>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

namespace mbdrom::widgets {

namespace {

void setTextIfIdle(QLineEdit* edit, const QString& text) {
  // Leave a field the user is typing in alone.
  if (!edit->hasFocus() || !edit->isModified()) {
    edit->setText(text);
    // A number wider than its field shows its start: 0.0982254 must not read "98225".
    if (!edit->hasFocus()) edit->setCursorPosition(0);
  }
  edit->setModified(false);
}

}  // namespace

PropertyEditor::PropertyEditor(QWidget* parent) : QScrollArea(parent) {
  setObjectName("propertyEditor");
  setWidgetResizable(true);
  setFrameShape(QFrame::NoFrame);
  showElement({}, std::nullopt);
}

QWidget* PropertyEditor::fieldWidget(const QString& key) const {
  for (const Field& f : fields_)
    if (f.key == key) return f.editor;
  return nullptr;
}

QString PropertyEditor::fieldError(const QString& key) const {
  for (const Field& f : fields_)
    if (f.key == key && f.error) return f.error->isHidden() ? QString() : f.error->text();
  return {};
}

QString PropertyEditor::structureKey(const ModelSpec& spec) const {
  if (!ref_ || !elementExists(spec, *ref_)) return {};
  const ElementRef& r = *ref_;
  QString key = QStringLiteral("%1/%2/%3/").arg(static_cast<int>(r.kind)).arg(r.index).arg(r.sub);
  const auto i = static_cast<std::size_t>(r.index);
  switch (r.kind) {
    case ElementKind::Body:
      // Shapes: one group each, whose rows depend on the type.
      key += QString::number(static_cast<int>(spec.bodies[i].type));
      for (const ShapeSpec& shape : spec.bodies[i].shapes) key += "/" + QString::fromStdString(shape.type);
      break;
    case ElementKind::Joint: key += QString::number(static_cast<int>(spec.joints[i].type)); break;
    case ElementKind::Driver: key += QString::number(static_cast<int>(spec.drivers[i].function.type)); break;
    case ElementKind::Friction: key += QString::number(static_cast<int>(spec.frictions[i].law)); break;
    case ElementKind::Load: {
      const LoadSpec& l = spec.loadCases[i].loads[static_cast<std::size_t>(r.sub)];
      key += QStringLiteral("%1/%2").arg(static_cast<int>(l.type)).arg(static_cast<int>(l.function.type));
      break;
    }
    default: break;
  }
  return key;
}

void PropertyEditor::showElement(const ModelSpec& spec, std::optional<ElementRef> ref) {
  if (ref && !elementExists(spec, *ref)) ref.reset();
  const bool sameElement = ref_ == ref;
  spec_ = spec;
  staged_.reset();
  if (stagedApply_ && sameElement) stagedApply_->setEnabled(false);
  ref_ = ref;
  const QString structure = structureKey(spec);
  if (sameElement && form_ && structure == structure_) {
    // The mechanism changed (an accepted edit, undo, redo): earlier refusals no longer apply.
    for (const Field& f : fields_) {
      if (f.refresh) f.refresh(spec_);
      if (f.error) f.error->hide();
    }
    return;
  }
  structure_ = structure;
  // A commit that changes the rows (a shape's type) rebuilds the form: it stays where it was scrolled.
  const int scrolled = sameElement ? verticalScrollBar()->value() : 0;
  build();
  if (scrolled > 0) {
    form_->adjustSize();
    verticalScrollBar()->setValue(scrolled);
    // The scroll range follows the new form's layout, which may settle a moment later.
    QTimer::singleShot(0, this, [this, scrolled, form = QPointer<QWidget>(form_)] {
      if (form && form == form_) verticalScrollBar()->setValue(scrolled);
    });
  }
}

void PropertyEditor::build() {
  // The old form may own the widget whose signal led here: delete it later.
  if (QWidget* old = takeWidget()) old->deleteLater();
  fields_.clear();
  stagedApply_ = nullptr;
  form_ = new QWidget;
  layout_ = new QFormLayout(form_);
  layout_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  layout_->setLabelAlignment(Qt::AlignRight);
  // Filled before it is set: a scroll area sizes its widget from the finished layout.
  struct Install {
    PropertyEditor* self;
    ~Install() { self->setWidget(self->form_); }
  } install{this};
  if (!ref_) {
    addNote(tr("Select an element in the model tree to edit its properties."));
    return;
  }
  const ElementRef r = *ref_;
  const auto i = static_cast<std::size_t>(r.index);
  const auto k = static_cast<std::size_t>(r.sub);
  auto* title =
      new QLabel(QStringLiteral("<b>%1</b>").arg(QString::fromLatin1(elementKindName(r.kind))), form_);
  layout_->addRow(title);

  // The page is its kind's description, walked in order.
  const FieldAt at{i, k};
  for (const FieldDescription& f : pageDescription(r.kind))
    if (!f.shown || f.shown(spec_, at)) addField(f, at);
}

void PropertyEditor::addField(const FieldDescription& f, FieldAt at) {
  const QString key = QString::fromLatin1(f.key), label = tr(f.label), unit = QString::fromUtf8(f.unit);
  using Type = FieldDescription::Type;
  switch (f.type) {
    case Type::Name: addName(); break;
    case Type::Text:
      addText(
          key, label, [get = f.getText, at](const ModelSpec& s) { return get(s, at); },
          [set = f.setText, at](ModelSpec& s, const std::string& v) { set(s, at, v); });
      break;
    case Type::Number:
      addNumber(
          key, label, unit, [get = f.getNumber, at](const ModelSpec& s) { return get(s, at); },
          [set = f.setNumber, at](ModelSpec& s, double v) { set(s, at, v); },
          f.reset ? std::function<void(ModelSpec&)>([reset = f.reset, at](ModelSpec& s) { reset(s, at); })
                  : std::function<void(ModelSpec&)>());
      break;
    case Type::Vector:
      addVector(
          key, label, unit, [get = f.getVector, at](const ModelSpec& s) { return get(s, at); },
          [set = f.setVector, at](ModelSpec& s, const Eigen::Vector3d& v) { set(s, at, v); });
      break;
    case Type::NumberList:
      addNumberList(
          key, label, unit, [get = f.getList, at](const ModelSpec& s) { return get(s, at); },
          [set = f.setList, at](ModelSpec& s, const std::vector<double>& v) { set(s, at, v); });
      break;
    case Type::Choice:
      addChoice(
          key, label, f.options(spec_), [get = f.getText, at](const ModelSpec& s) { return get(s, at); },
          [set = f.setText, at](ModelSpec& s, const std::string& v) { set(s, at, v); }, f.staged);
      break;
    case Type::Check:
      addCheck(
          key, label, [get = f.getCheck, at](const ModelSpec& s) { return get(s, at); },
          [set = f.setCheck, at](ModelSpec& s, bool v) { set(s, at, v); });
      break;
    case Type::TimeFunction:
      addTimeFunction(
          key, [get = f.getFunction, at](const ModelSpec& s) { return get(s, at); },
          [set = f.setFunction, at](ModelSpec& s, const TimeFunction& v) { set(s, at, v); });
      break;
    case Type::Note: addNote(f.text ? f.text(spec_, at) : label); break;
    case Type::StagedApply: addStagedApply(label); break;
    case Type::Inertia: addInertia(); break;
    case Type::Shapes: addShapes(static_cast<int>(at.i)); break;
  }
}

QLabel* PropertyEditor::addRow(const QString& label, QWidget* editor, const QString& key) {
  editor->setObjectName(key);
  auto* box = new QWidget(form_);
  auto* v = new QVBoxLayout(box);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(1);
  v->addWidget(editor);
  auto* error = new QLabel(box);
  error->setObjectName(key + "_error");
  error->setWordWrap(true);
  error->setStyleSheet(QStringLiteral("color: #c0392b;"));
  error->hide();
  v->addWidget(error);
  layout_->addRow(label, box);
  return error;
}

void PropertyEditor::revert() {
  for (QLineEdit* edit : findChildren<QLineEdit*>()) edit->setModified(false);
  staged_.reset();
  if (stagedApply_) stagedApply_->setEnabled(false);
  for (const Field& f : fields_) {
    if (f.refresh) f.refresh(spec_);
    if (f.error) f.error->hide();
  }
}

void PropertyEditor::keyPressEvent(QKeyEvent* event) {
  // A field passes Escape on: the values the model holds come back, as in a spreadsheet.
  if (event->key() == Qt::Key_Escape && event->modifiers() == Qt::NoModifier) {
    revert();
    event->accept();
    return;
  }
  QScrollArea::keyPressEvent(event);
}

void PropertyEditor::showError(const QString& key, const QString& message) {
  for (const Field& f : fields_)
    if (f.key == key && f.error) {
      f.error->setText(message);
      f.error->setVisible(!message.isEmpty());
    }
}

void PropertyEditor::propose(const QString& key, const QString& description, const Setter& change) {
  if (!ref_ || !applyEdit_) return;
  ModelSpec next = spec_;
  QString error;
  try {
    change(next);
  } catch (const Error& e) {
    error = QString::fromStdString(e.what());
  }
  if (error.isEmpty()) {
    const QString element = QString::fromStdString(elementName(spec_, *ref_));
    error = applyEdit_(next, tr("%1 of %2").arg(description, element));
  }
  // The handler may have rebuilt the form; look the field up again.
  showError(key, error);
}

void PropertyEditor::addStagedApply(const QString& text) {
  auto* apply = new QPushButton(text, form_);
  apply->setEnabled(false);
  apply->setToolTip(tr("The fields above depend on each other: they are checked and applied together"));
  stagedApply_ = apply;
  fields_.push_back({"connection", apply, addRow(QString(), apply, "connection_apply"), nullptr});
  fields_.back().key = "connection";
  connect(apply, &QPushButton::clicked, this, [this] {
    if (!staged_) return;
    const ModelSpec next = *staged_;
    propose("connection", tr("connection"), [&next](ModelSpec& s) { s = next; });
    // Refused: the choices stay as typed so they can be corrected.
    if (fieldError("connection").isEmpty()) staged_.reset();
  });
}

void PropertyEditor::addNote(const QString& text) {
  auto* note = new QLabel(text, form_);
  note->setWordWrap(true);
  note->setStyleSheet(QStringLiteral("color: palette(mid);"));
  layout_->addRow(note);
}

void PropertyEditor::addText(const QString& key, const QString& label,
                             std::function<std::string(const ModelSpec&)> get,
                             std::function<void(ModelSpec&, const std::string&)> set) {
  auto* edit = new QLineEdit(form_);
  Field f{key, edit, addRow(label, edit, key),
          [edit, get](const ModelSpec& s) { setTextIfIdle(edit, QString::fromStdString(get(s))); }};
  f.refresh(spec_);
  fields_.push_back(f);
  connect(edit, &QLineEdit::editingFinished, this, [this, edit, key, label, set] {
    if (!edit->isModified()) return;
    edit->setModified(false);
    const std::string value = edit->text().trimmed().toStdString();
    propose(key, label.toLower(), [&](ModelSpec& s) { set(s, value); });
  });
}

void PropertyEditor::addName() {
  const ElementRef r = *ref_;
  addText(
      "name", tr("Name"), [r](const ModelSpec& s) { return elementName(s, r); },
      [r](ModelSpec& s, const std::string& v) { renameElement(s, r, v); });
}

void PropertyEditor::addNumber(const QString& key, const QString& label, const QString& unit,
                               std::function<double(const ModelSpec&)> get,
                               std::function<void(ModelSpec&, double)> set,
                               std::function<void(ModelSpec&)> reset) {
  auto* box = new QWidget(form_);
  auto* h = new QHBoxLayout(box);
  h->setContentsMargins(0, 0, 0, 0);
  auto* edit = new QLineEdit(box);
  edit->setObjectName(key + "_value");
  h->addWidget(edit, 1);
  h->addWidget(new QLabel(unit, box));
  Field f{key, box, addRow(label, box, key), [edit, get](const ModelSpec& s) {
            const double v = get(s);
            setTextIfIdle(edit, std::isnan(v) ? QString() : formatNumber(v));
          }};
  if (std::isnan(get(spec_)) || reset) edit->setPlaceholderText(tr("default"));
  if (reset) edit->setToolTip(tr("Empty: the default"));
  f.refresh(spec_);
  fields_.push_back(f);
  connect(edit, &QLineEdit::editingFinished, this, [this, edit, key, label, unit, set, reset] {
    if (!edit->isModified()) return;
    edit->setModified(false);
    if (reset && edit->text().trimmed().isEmpty()) {
      propose(key, label.toLower(), [&](ModelSpec& s) { reset(s); });
      return;
    }
    const auto v = parseNumber(edit->text());
    if (!v) {
      showError(key, tr("\"%1\" is not a number (%2)").arg(edit->text(), unit));
      return;
    }
    propose(key, label.toLower(), [&](ModelSpec& s) { set(s, *v); });
  });
}

void PropertyEditor::addVector(const QString& key, const QString& label, const QString& unit,
                               std::function<Eigen::Vector3d(const ModelSpec&)> get,
                               std::function<void(ModelSpec&, const Eigen::Vector3d&)> set) {
  auto* box = new QWidget(form_);
  auto* h = new QHBoxLayout(box);
  h->setContentsMargins(0, 0, 0, 0);
  h->setSpacing(3);
  std::array<QLineEdit*, 3> edits{};
  const char* axes[] = {"x", "y", "z"};
  for (int c = 0; c < 3; ++c) {
    edits[static_cast<std::size_t>(c)] = new QLineEdit(box);
    edits[static_cast<std::size_t>(c)]->setObjectName(key + "_" + axes[c]);
    edits[static_cast<std::size_t>(c)]->setToolTip(
        QStringLiteral("%1 [%2]").arg(QString::fromLatin1(axes[c]), unit));
    edits[static_cast<std::size_t>(c)]->setMinimumWidth(44);
    h->addWidget(edits[static_cast<std::size_t>(c)], 1);
  }
  h->addWidget(new QLabel(unit, box));
  Field f{key, box, addRow(label, box, key), [edits, get](const ModelSpec& s) {
            const Eigen::Vector3d v = get(s);
            for (int c = 0; c < 3; ++c) setTextIfIdle(edits[static_cast<std::size_t>(c)], formatNumber(v[c]));
          }};
  f.refresh(spec_);
  fields_.push_back(f);
  // The three components are one value: a direction turned from z to y, or a
  // centre of mass moved along a diagonal, passes through invalid states one
  // field at a time. Enter in any field or Apply proposes the whole vector.
  auto* apply = new QPushButton(tr("Apply"), box);
  apply->setObjectName(key + "_apply");
  apply->setToolTip(tr("Apply the three components as one edit (Enter does the same)"));
  apply->setEnabled(false);
  h->addWidget(apply);
  auto commit = [this, edits, key, label, set, unit, apply] {
    Eigen::Vector3d value;
    for (int c = 0; c < 3; ++c) {
      QLineEdit* edit = edits[static_cast<std::size_t>(c)];
      const auto v = parseNumber(edit->text());
      if (!v) {
        showError(
            key,
            tr("%1: \"%2\" is not a number (%3)").arg(QStringLiteral("xyz").mid(c, 1), edit->text(), unit));
        return;
      }
      value[c] = *v;
    }
    for (QLineEdit* edit : edits) edit->setModified(false);
    apply->setEnabled(false);
    propose(key, label.toLower(), [&](ModelSpec& s) { set(s, value); });
  };
  for (QLineEdit* edit : edits) {
    connect(edit, &QLineEdit::textEdited, apply, [apply] { apply->setEnabled(true); });
    connect(edit, &QLineEdit::returnPressed, this, commit);
  }
  connect(apply, &QPushButton::clicked, this, commit);
}

void PropertyEditor::addNumberList(const QString& key, const QString& label, const QString& unit,
                                   std::function<std::vector<double>(const ModelSpec&)> get,
                                   std::function<void(ModelSpec&, const std::vector<double>&)> set) {
  auto* edit = new QLineEdit(form_);
  edit->setToolTip(tr("Comma-separated, %1").arg(unit));
  Field f{key, edit, addRow(label, edit, key), [edit, get](const ModelSpec& s) {
            QStringList items;
            for (double v : get(s)) items << formatNumber(v);
            setTextIfIdle(edit, items.join(", "));
          }};
  f.refresh(spec_);
  fields_.push_back(f);
  connect(edit, &QLineEdit::editingFinished, this, [this, edit, key, label, set] {
    if (!edit->isModified()) return;
    edit->setModified(false);
    QString why;
    const auto values = parseNumberList(edit->text(), why);
    if (!values) {
      showError(key, why);
      return;
    }
    propose(key, label.toLower(), [&](ModelSpec& s) { set(s, *values); });
  });
}

void PropertyEditor::addChoice(const QString& key, const QString& label, const QStringList& options,
                               std::function<std::string(const ModelSpec&)> get,
                               std::function<void(ModelSpec&, const std::string&)> set, bool staged) {
  auto* combo = new QComboBox(form_);
  combo->addItems(options);
  Field f{key, combo, addRow(label, combo, key), [combo, get](const ModelSpec& s) {
            const QString v = QString::fromStdString(get(s));
            if (combo->findText(v) < 0) combo->addItem(v);
            const QSignalBlocker block(combo);
            combo->setCurrentText(v);
          }};
  f.refresh(spec_);
  fields_.push_back(f);
  connect(combo, &QComboBox::currentTextChanged, this, [this, key, label, set, staged](const QString& text) {
    const std::string value = text.toStdString();
    if (staged) {
      // Part of a group applied together (a joint's bodies, points and axes).
      if (!staged_) staged_ = spec_;
      set(*staged_, value);
      if (stagedApply_) stagedApply_->setEnabled(true);
      return;
    }
    propose(key, label.toLower(), [&](ModelSpec& s) { set(s, value); });
  });
}

void PropertyEditor::addCheck(const QString& key, const QString& label,
                              std::function<bool(const ModelSpec&)> get,
                              std::function<void(ModelSpec&, bool)> set) {
  auto* check = new QCheckBox(form_);
  Field f{key, check, addRow(label, check, key), [check, get](const ModelSpec& s) {
            const QSignalBlocker block(check);
            check->setChecked(get(s));
          }};
  f.refresh(spec_);
  fields_.push_back(f);
  connect(check, &QCheckBox::toggled, this, [this, key, label, set](bool on) {
    propose(key, label.toLower(), [&](ModelSpec& s) { set(s, on); });
  });
}

void PropertyEditor::addInertia() {
  const auto i = static_cast<std::size_t>(ref_->index);
  // Symmetric: the three diagonal and three off-diagonal terms.
  const struct {
    const char* key;
    int r, c;
  } terms[] = {{"Ixx", 0, 0}, {"Iyy", 1, 1}, {"Izz", 2, 2}, {"Ixy", 0, 1}, {"Ixz", 0, 2}, {"Iyz", 1, 2}};
  addNote(tr("Inertia tensor about the centre of mass, global axes:"));
  for (const auto& t : terms) {
    const int r = t.r, c = t.c;
    addNumber(
        QString::fromLatin1(t.key), QString::fromLatin1(t.key), "kg m²",
        [i, r, c](const ModelSpec& s) { return s.bodies[i].inertia(r, c); },
        [i, r, c](ModelSpec& s, double v) {
          s.bodies[i].inertia(r, c) = v;
          s.bodies[i].inertia(c, r) = v;
        });
  }
}

void PropertyEditor::addTimeFunction(const QString& key, std::function<TimeFunction(const ModelSpec&)> get,
                                     std::function<void(ModelSpec&, const TimeFunction&)> set) {
  const TimeFunction f = get(spec_);
  QStringList types;
  for (int t = 0; t <= static_cast<int>(TimeFunction::Type::Sum); ++t)
    types << QString::fromLatin1(timeFunctionTypeName(static_cast<TimeFunction::Type>(t)));
  addChoice(
      key + "_type", tr("f(t)"), types,
      [get](const ModelSpec& s) { return std::string(timeFunctionTypeName(get(s).type)); },
      [get, set](ModelSpec& s, const std::string& v) {
        TimeFunction g = get(s);
        for (int t = 0; t <= static_cast<int>(TimeFunction::Type::Sum); ++t)
          if (v == timeFunctionTypeName(static_cast<TimeFunction::Type>(t)))
            g.type = static_cast<TimeFunction::Type>(t);
        if (g.type == TimeFunction::Type::Table && g.times.empty())
          g = TimeFunction::table({0.0, 1.0}, {0.0, 1.0});
        if (g.type == TimeFunction::Type::Sum && g.terms.empty()) g.terms = {TimeFunction::constant(1.0)};
        set(s, g);
      });
  using P = double TimeFunction::*;
  auto param = [&](const char* name, const QString& label, const QString& unit, P member) {
    addNumber(
        key + "_" + name, label, unit, [get, member](const ModelSpec& s) { return get(s).*member; },
        [get, set, member](ModelSpec& s, double v) {
          TimeFunction g = get(s);
          g.*member = v;
          set(s, g);
        });
  };
  switch (f.type) {
    case TimeFunction::Type::Constant: param("value", tr("Value"), "–", &TimeFunction::value); break;
    case TimeFunction::Type::Sine:
    case TimeFunction::Type::Chirp:
      param("amplitude", tr("Amplitude"), "–", &TimeFunction::amplitude);
      param("frequency", tr("Frequency"), "Hz", &TimeFunction::frequency);
      if (f.type == TimeFunction::Type::Chirp)
        param("rate", tr("Frequency rate"), "Hz/s", &TimeFunction::rate);
      param("phase", tr("Phase"), "rad", &TimeFunction::phase);
      param("offset", tr("Offset"), "–", &TimeFunction::offset);
      break;
    case TimeFunction::Type::Step:
      param("t0", tr("Step time"), "s", &TimeFunction::t0);
      param("value", tr("Value"), "–", &TimeFunction::value);
      break;
    case TimeFunction::Type::SmoothStep:
      param("t0", tr("Start"), "s", &TimeFunction::t0);
      param("t1", tr("End"), "s", &TimeFunction::t1);
      param("value", tr("Value"), "–", &TimeFunction::value);
      break;
    case TimeFunction::Type::Table:
      addNote(f.file.empty() ? tr("table of %n point(s); edit the points in the model file", nullptr,
                                  static_cast<int>(f.times.size()))
                             : tr("table from %1, column %2")
                                   .arg(QString::fromStdString(f.file), QString::fromStdString(f.column)));
      break;
    case TimeFunction::Type::Sum:
      addNote(tr("sum of %n term(s); edit the terms in the model file", nullptr,
                 static_cast<int>(f.terms.size())));
      break;
  }
  auto* preview = new FunctionPreview(form_);
  preview->setObjectName(key + "_preview");
  preview->setFunction(f);
  layout_->addRow(preview);
  fields_.push_back({key + "_preview", preview, nullptr,
                     [preview, get](const ModelSpec& s) { preview->setFunction(get(s)); }});
}

}  // namespace mbdrom::widgets
