#pragma once
/// @file
/// Numbers as text that reads back exactly, locale independent.

#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace mbdrom {

/// The shortest text that reads back as x (std::to_chars); "inf", "-inf", "nan" as such.
inline std::string shortestNumberText(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buffer[32];
  const auto res = std::to_chars(buffer, buffer + sizeof buffer, x);
  return std::string(buffer, res.ptr);
}

/// Appends the shortest text that reads back as x (std::to_chars) to `out`.
inline void appendShortestNumber(std::string& out, double x) {
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, x);
  out.append(buffer, ec == std::errc() ? end : buffer);
}

/// x with six significant digits, as printf's "%g" writes it: for messages, not for files.
inline std::string shortNumberText(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", x);
  return buffer;
}

/// x with three significant digits ("%.3g"): for measured figures, whose further digits mean nothing.
inline std::string figureText(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", x);
  return buffer;
}

/// The number a whole text spells (surrounding blanks and a leading '+' allowed), or nothing.
inline std::optional<double> parseWholeNumber(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  double x = 0.0;
  const auto res = std::from_chars(s.data(), s.data() + s.size(), x);
  if (s.empty() || res.ec != std::errc() || res.ptr != s.data() + s.size()) return std::nullopt;
  return x;
}

}  // namespace mbdrom
