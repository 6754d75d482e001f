#pragma once
// Numbers as the editors read and show them: locale-independent (the GUI's
// locale must not turn 0.5 into 0,5), shortest round-trip text, finite only.

#include <QRegularExpression>
#include <QString>
#include <QStringList>

#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace mbdrom::widgets {

inline QString formatNumber(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return QString::fromLatin1(buf, static_cast<int>(r.ptr - buf));
}

/// The number in `text`, or nothing for text that is not one finite number.
inline std::optional<double> parseNumber(const QString& text) {
  const std::string s = text.trimmed().toStdString();
  if (s.empty()) return std::nullopt;
  double v = 0.0;
  const char* begin = s.data();
  if (*begin == '+') ++begin;
  const auto r = std::from_chars(begin, s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

/// A list of numbers separated by ", ", ";" or spaces. "1,5" (a digit, a comma, a
/// digit) is refused: it may be a decimal comma, and silently reading two numbers
/// would be wrong. Returns nothing and sets `error` for any item that is not a number.
inline std::optional<std::vector<double>> parseNumberList(const QString& text, QString& error) {
  static const QRegularExpression decimalComma(QStringLiteral("\\d,\\d"));
  if (const auto m = decimalComma.match(text); m.hasMatch()) {
    error = QStringLiteral(
                "\"%1\": a decimal comma? Write a point (1.5) and separate numbers by \", \" or spaces")
                .arg(m.captured(0));
    return std::nullopt;
  }
  static const QRegularExpression separators(QStringLiteral("[,;\\s]+"));
  std::vector<double> out;
  for (const QString& item : text.split(separators, Qt::SkipEmptyParts)) {
    const auto v = parseNumber(item);
    if (!v) {
      error = QStringLiteral("\"%1\" is not a finite number").arg(item);
      return std::nullopt;
    }
    out.push_back(*v);
  }
  return out;
}

}  // namespace mbdrom::widgets
