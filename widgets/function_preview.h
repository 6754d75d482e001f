#pragma once
// A small plot of f(t) over a time span chosen from its parameters, with its
// range: enough to see amplitude, frequency and ramps. Shared by the property
// editor and the creation dialogs.

#include "engine/model/time_function.h"

#include <QWidget>

namespace mbdrom::widgets {

class FunctionPreview : public QWidget {
 public:
  explicit FunctionPreview(QWidget* parent);
  void setFunction(const TimeFunction& f);
  /// The time span shown [s].
  double span() const;

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  TimeFunction f_;
};

}  // namespace mbdrom::widgets
