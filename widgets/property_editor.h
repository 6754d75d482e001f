#pragma once
// Typed editors for the selected element of a mechanism: names, 3-vectors with
// units, inertia tensor, joint and force connections, time functions with a
// preview plot. An edit is proposed as a whole new ModelSpec to `applyEdit`;
// when that refuses it (invalid mechanism, bad number) the message is shown
// next to the field and nothing changes.

#include "engine/model/spec_edit.h"
#include "widgets/property_fields.h"

#include <QScrollArea>

#include <functional>
#include <optional>
#include <vector>

class QLabel;
class QFormLayout;

namespace mbdrom::widgets {

class PropertyEditor : public QScrollArea {
  Q_OBJECT
 public:
  explicit PropertyEditor(QWidget* parent = nullptr);

  /// Proposes an edit; returns an error message, or empty when it was applied.
  using EditHandler = std::function<QString(const ModelSpec& spec, const QString& description)>;
  void setEditHandler(EditHandler handler) { applyEdit_ = std::move(handler); }

  /// Shows the element's fields (a hint when there is none). When the same
  /// element is shown again with the same fields, only the values are updated,
  /// so focus and typing are not disturbed.
  void showElement(const ModelSpec& spec, std::optional<ElementRef> ref);
  std::optional<ElementRef> element() const { return ref_; }

  /// The editor widget of a field ("name", "position", "mass", ...), for tests.
  QWidget* fieldWidget(const QString& key) const;
  /// The inline message of a field (empty when the last edit was accepted).
  QString fieldError(const QString& key) const;

  /// Shows the element's values again, dropping what was typed or refused and not applied
  /// (Escape in a field).
  void revert();

 protected:
  void keyPressEvent(QKeyEvent* event) override;

 private:
  struct Field {
    QString key;
    QWidget* editor = nullptr;
    QLabel* error = nullptr;
    std::function<void(const ModelSpec&)> refresh;
  };
  // Builders: each adds a labelled row with its inline error label.
  using Setter = std::function<void(ModelSpec&)>;
  void addText(const QString& key, const QString& label, std::function<std::string(const ModelSpec&)> get,
               std::function<void(ModelSpec&, const std::string&)> set);
  void addName();
  /// `reset`, when given, makes an empty field mean "the default" (an optional value).
  void addNumber(const QString& key, const QString& label, const QString& unit,
                 std::function<double(const ModelSpec&)> get, std::function<void(ModelSpec&, double)> set,
                 std::function<void(ModelSpec&)> reset = {});
  void addVector(const QString& key, const QString& label, const QString& unit,
                 std::function<Eigen::Vector3d(const ModelSpec&)> get,
                 std::function<void(ModelSpec&, const Eigen::Vector3d&)> set);
  void addNumberList(const QString& key, const QString& label, const QString& unit,
                     std::function<std::vector<double>(const ModelSpec&)> get,
                     std::function<void(ModelSpec&, const std::vector<double>&)> set);
  void addChoice(const QString& key, const QString& label, const QStringList& options,
                 std::function<std::string(const ModelSpec&)> get,
                 std::function<void(ModelSpec&, const std::string&)> set, bool staged = false);
  /// The button that applies the staged choices (addChoice with `staged`) as one edit.
  void addStagedApply(const QString& text);
  void addCheck(const QString& key, const QString& label, std::function<bool(const ModelSpec&)> get,
                std::function<void(ModelSpec&, bool)> set);
  void addInertia();
  void addTimeFunction(const QString& key, std::function<TimeFunction(const ModelSpec&)> get,
                       std::function<void(ModelSpec&, const TimeFunction&)> set);
  void addNote(const QString& text);
  /// The display shapes of body `body` (property_editor_shapes.cpp).
  void addShapes(int body);
  void addMeshFile(const QString& key, std::size_t shape, int body);
  /// A colour as #rrggbb text with a picker; empty means "the default".
  void addColour(const QString& key, const QString& label,
                 std::function<std::optional<Eigen::Vector3d>(const ModelSpec&)> get,
                 std::function<void(ModelSpec&, const std::optional<Eigen::Vector3d>&)> set);

  QLabel* addRow(const QString& label, QWidget* editor, const QString& key);
  /// Proposes spec_ changed by `change`; shows the refusal on `key`'s row.
  void propose(const QString& key, const QString& description, const Setter& change);
  void showError(const QString& key, const QString& message);
  void build();
  // One page per element kind: its fields (i: the element, k: its sub-element, a marker or a load).
  // Adds field `f` of the page's description (property_pages.cpp) for element `at`.
  void addField(const FieldDescription& f, FieldAt at);
  QString structureKey(const ModelSpec& spec) const;

  EditHandler applyEdit_;
  ModelSpec spec_;
  std::optional<ElementRef> ref_;
  QString structure_;
  QWidget* form_ = nullptr;
  QFormLayout* layout_ = nullptr;
  std::vector<Field> fields_;
  std::optional<ModelSpec> staged_;  // staged choices not yet applied
  QWidget* stagedApply_ = nullptr;
};

}  // namespace mbdrom::widgets
