#include "app/editing/typed_point.h"

#include <QCoreApplication>
#include <QRegularExpression>
#include <QStringList>

#include <cmath>

namespace mbdrom::app {

namespace {

bool isNumberText(const QString& word) {
  bool ok = false;
  word.toDouble(&ok);
  return ok;
}

QString typedPointText(const char* text) {
  return QCoreApplication::translate("TypedPoint", text);
}

}  // namespace

TypedPoint parseTypedPoint(const QString& text) {
  TypedPoint out;
  QString rest = text.trimmed();
  rest.remove(QRegularExpression(QStringLiteral("[()\\[\\]]")));
  QStringList words = rest.split(QRegularExpression(QStringLiteral("[\\s,;]+")), Qt::SkipEmptyParts);
  // A first word that is not a number names the point ("A" or "A:").
  if (!words.isEmpty()) {
    QString first = words.front();
    if (first.endsWith(':')) first.chop(1);
    if (!isNumberText(first)) {
      out.name = first;
      words.pop_front();
    }
  }
  if (words.size() != 3) {
    out.error =
        typedPointText("type three coordinates in m, e.g. \"0.3 0 1.2\" or \"A: 0.3, 0, 1.2\" (%1 given)")
            .arg(words.size());
    return out;
  }
  for (int k = 0; k < 3; ++k) {
    bool ok = false;
    const double v = words[k].toDouble(&ok);
    if (!ok || !std::isfinite(v)) {
      out.error = typedPointText("\"%1\" is not a number").arg(words[k]);
      return out;
    }
    out.position[k] = v;
  }
  return out;
}

}  // namespace mbdrom::app
