#pragma once
// Numbers as the editors read and show them: locale-independent (the GUI's
// locale must not turn 0.5 into 0,5), shortest round-trip text, finite only.

#include <QString>

#include <charconv>
#include <cmath>
#include <optional>
#include <string>

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

}  // namespace mbdrom::widgets
