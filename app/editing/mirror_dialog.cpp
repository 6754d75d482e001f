#include "app/editing/mirror_dialog.h"

#include "engine/core/error.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace mbdrom::app {

MirrorDialog::MirrorDialog(const ModelSpec& spec, const std::vector<ElementRef>& preselected, QWidget* parent)
    : QDialog(parent), spec_(spec), result_(spec) {
  setWindowTitle(tr("Mirror"));
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(
      new QLabel(tr("Elements to mirror (their points, vectors and bodies come along):"), this));
  list_ = new QListWidget(this);
  list_->setObjectName("elements");
  auto add = [&](ElementKind kind, int index, int sub, const std::string& name) {
    const ElementRef ref{kind, index, sub};
    auto* item = new QListWidgetItem(
        QStringLiteral("%1 %2").arg(QString::fromLatin1(elementKindName(kind)), QString::fromStdString(name)),
        list_);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    const bool on = preselected.empty()
                        ? kind != ElementKind::Point && kind != ElementKind::Vector
                        : std::find(preselected.begin(), preselected.end(), ref) != preselected.end();
    item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    refs_.push_back(ref);
  };
  for (std::size_t i = 0; i < spec.bodies.size(); ++i)
    add(ElementKind::Body, static_cast<int>(i), 0, spec.bodies[i].name);
  for (std::size_t i = 0; i < spec.joints.size(); ++i)
    add(ElementKind::Joint, static_cast<int>(i), 0, spec.joints[i].name);
  for (std::size_t i = 0; i < spec.drivers.size(); ++i)
    add(ElementKind::Driver, static_cast<int>(i), 0, spec.drivers[i].name);
  for (std::size_t i = 0; i < spec.springDampers.size(); ++i)
    add(ElementKind::SpringDamper, static_cast<int>(i), 0, spec.springDampers[i].name);
  for (std::size_t i = 0; i < spec.frictions.size(); ++i)
    add(ElementKind::Friction, static_cast<int>(i), 0, spec.frictions[i].name);
  for (std::size_t c = 0; c < spec.loadCases.size(); ++c)
    for (std::size_t l = 0; l < spec.loadCases[c].loads.size(); ++l)
      add(ElementKind::Load, static_cast<int>(c), static_cast<int>(l),
          spec.loadCases[c].loads[l].name + " (" + spec.loadCases[c].name + ")");
  for (std::size_t i = 0; i < spec.points.size(); ++i)
    add(ElementKind::Point, static_cast<int>(i), 0, spec.points[i].name);
  layout->addWidget(list_, 1);

  auto* form = new QFormLayout;
  axis_ = new QComboBox(this);
  axis_->setObjectName("plane");
  axis_->addItems({tr("x = offset"), tr("y = offset (left ↔ right)"), tr("z = offset")});
  axis_->setCurrentIndex(1);
  offset_ = new QDoubleSpinBox(this);
  offset_->setObjectName("offset");
  offset_->setRange(-1e6, 1e6);
  offset_->setDecimals(4);
  offset_->setSuffix(" m");
  form->addRow(tr("Plane"), axis_);
  form->addRow(tr("Offset"), offset_);
  layout->addLayout(form);
  preview_ = new QLabel(this);
  preview_->setObjectName("preview");
  preview_->setWordWrap(true);
  preview_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(preview_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  ok_ = buttons->button(QDialogButtonBox::Ok);
  layout->addWidget(buttons);
  connect(list_, &QListWidget::itemChanged, this, &MirrorDialog::updatePreview);
  connect(axis_, &QComboBox::currentIndexChanged, this, &MirrorDialog::updatePreview);
  connect(offset_, &QDoubleSpinBox::valueChanged, this, &MirrorDialog::updatePreview);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  updatePreview();
  resize(520, 560);
}

std::vector<ElementRef> MirrorDialog::selection() const {
  std::vector<ElementRef> refs;
  for (int row = 0; row < list_->count(); ++row)
    if (list_->item(row)->checkState() == Qt::Checked) refs.push_back(refs_[static_cast<std::size_t>(row)]);
  return refs;
}

MirrorPlane MirrorDialog::plane() const {
  return {axis_->currentIndex(), offset_->value()};
}

void MirrorDialog::updatePreview() {
  result_ = spec_;
  try {
    const std::vector<ElementRef> copies = mirrorElements(result_, selection(), plane());
    QStringList names;
    for (const ElementRef& ref : copies) names << QString::fromStdString(elementName(result_, ref));
    preview_->setStyleSheet({});
    preview_->setText(tr("%1 copies: %2").arg(copies.size()).arg(names.join(", ")));
    ok_->setEnabled(true);
  } catch (const Error& e) {
    result_ = spec_;
    preview_->setStyleSheet("color: #c0392b;");
    preview_->setText(QString::fromStdString(e.what()));
    ok_->setEnabled(false);
  }
}

}  // namespace mbdrom::app
