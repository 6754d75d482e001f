#pragma once
// Edit ▸ Mirror...: renamed copies of a side of the mechanism about a plane
// (engine/model/mirror.h), chosen from a checklist, with the copies' names
// and any clash shown before OK; the window applies it as one undo step.

#include "engine/model/mirror.h"

#include <QDialog>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QPushButton;

namespace mbdrom::app {

class MirrorDialog : public QDialog {
  Q_OBJECT
 public:
  /// `preselected`: the elements checked at first (all bodies, joints, forces and loads when empty).
  MirrorDialog(const ModelSpec& spec, const std::vector<ElementRef>& preselected, QWidget* parent = nullptr);

  std::vector<ElementRef> selection() const;
  MirrorPlane plane() const;
  /// The spec with the copies (valid after accept()).
  const ModelSpec& result() const { return result_; }

 private:
  void updatePreview();

  ModelSpec spec_, result_;
  std::vector<ElementRef> refs_;  // one per list row
  QListWidget* list_ = nullptr;
  QComboBox* axis_ = nullptr;
  QDoubleSpinBox* offset_ = nullptr;
  QLabel* preview_ = nullptr;
  QPushButton* ok_ = nullptr;
};

}  // namespace mbdrom::app
