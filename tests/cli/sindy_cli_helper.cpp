// Helper of the SINDy CLI tests: makes "measured" CSVs from engine runs and
// checks the identified equation that `mbdrom-cli train sindy` prints.
//
//   sindy_cli_helper measured RUN.csv OUT.csv COORDINATE OFFSET [--noise F] [--seed K]
//                    [--excitation A,W] [--nan-row R] [--repeat-time-row R] [--rows N]
//     writes `t,u` with u = COORDINATE - OFFSET of the run, plus Gaussian noise of F times
//     std(u) (Box-Muller on std::mt19937, fixed seed: the same numbers on every platform),
//     an excitation column `f` = A cos(W t), a NaN at data row R, time of row R equal to the
//     previous one, or only the first N rows.
//   sindy_cli_helper check OUTPUT.txt COORDINATE TOLERANCE TERM=VALUE,...
//     the equation of COORDINATE in OUTPUT (the CLI's stdout): every TERM within TOLERANCE
//     (relative) of VALUE and no other term (all others exactly zero). Prints each
//     coefficient and its relative error.

#include "engine/data/trajectory_csv.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr double kPi = 3.14159265358979323846;

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, by))
    if (!item.empty()) out.push_back(item);
  return out;
}

int measured(int argc, char** argv) {
  if (argc < 6) return 2;
  const mbdrom::TrajectoryTable run = mbdrom::readTrajectoryCsv(argv[2]);
  const int t = run.column("t"), x = run.column(argv[4]);
  if (t < 0 || x < 0) {
    std::cerr << "no column t or " << argv[4] << "\n";
    return 1;
  }
  const double offset = std::stod(argv[5]);
  double noise = 0.0, amplitude = 0.0, omega = 0.0;
  unsigned seed = 1;
  long nanRow = -1, repeatRow = -1, rows = run.data.rows();
  for (int i = 6; i + 1 < argc; i += 2) {
    const std::string option = argv[i], value = argv[i + 1];
    if (option == "--noise")
      noise = std::stod(value);
    else if (option == "--seed")
      seed = static_cast<unsigned>(std::stoul(value));
    else if (option == "--excitation") {
      const auto aw = split(value, ',');
      amplitude = std::stod(aw.at(0));
      omega = std::stod(aw.at(1));
    } else if (option == "--nan-row")
      nanRow = std::stol(value);
    else if (option == "--repeat-time-row")
      repeatRow = std::stol(value);
    else if (option == "--rows")
      rows = std::min<long>(rows, std::stol(value));
    else {
      std::cerr << "unknown option " << option << "\n";
      return 2;
    }
  }
  const Eigen::VectorXd u = run.data.col(x).array() - offset;
  const double sigma = noise * std::sqrt((u.array() - u.mean()).square().mean());
  std::mt19937 rng(seed);
  auto uniform = [&] { return (static_cast<double>(rng()) + 0.5) / 4294967296.0; };  // in (0, 1)
  std::ofstream out(argv[3]);
  out.precision(17);
  out << "t,u" << (amplitude != 0.0 ? ",f" : "") << "\n";
  for (long k = 0; k < rows; ++k) {
    const double e = sigma * std::sqrt(-2.0 * std::log(uniform())) * std::cos(2.0 * kPi * uniform());
    const double time = run.data(k == repeatRow - 1 ? k - 1 : k, t);
    out << time << ",";
    if (k == nanRow - 1)
      out << "nan";
    else
      out << u(k) + e;
    if (amplitude != 0.0) out << "," << amplitude * std::cos(omega * time);
    out << "\n";
  }
  return out ? 0 : 1;
}

// "1*u - 0.3*u_dot - 1*u^3 + 0.65*cos(1.2t)" -> {u: 1, u_dot: -0.3, ...}
std::map<std::string, double> terms(const std::string& rhs) {
  std::map<std::string, double> out;
  std::string text = rhs, sign = "+";
  if (!text.empty() && text[0] == '-') {
    sign = "-";
    text.erase(0, 1);
  }
  while (!text.empty()) {
    const auto plus = text.find(" + "), minus = text.find(" - ");
    const auto next = std::min(plus, minus);
    const std::string token = text.substr(0, next);
    const auto star = token.find('*');
    const double mag = std::stod(token.substr(0, star));
    out[star == std::string::npos ? "1" : token.substr(star + 1)] = sign == "-" ? -mag : mag;
    if (next == std::string::npos) break;
    sign = next == plus ? "+" : "-";
    text.erase(0, next + 3);
  }
  return out;
}

int check(int argc, char** argv) {
  if (argc != 6) return 2;
  std::ifstream in(argv[2]);
  const std::string coordinate = argv[3], prefix = coordinate + ": [M q_ddot - f^k]_" + coordinate + " = ";
  const double tolerance = std::stod(argv[4]);
  std::string line, rhs;
  bool found = false;
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) {
      rhs = line.substr(prefix.size());
      found = true;
    }
  if (!found) {
    std::cerr << "no equation of " << coordinate << " in " << argv[2] << "\n";
    return 1;
  }
  const std::map<std::string, double> got = terms(rhs);
  bool ok = true;
  std::map<std::string, double> expected;
  for (const std::string& item : split(argv[5], ',')) {
    const auto eq = item.rfind('=');
    expected[item.substr(0, eq)] = std::stod(item.substr(eq + 1));
  }
  for (const auto& [term, value] : expected) {
    const auto it = got.find(term);
    const double xi = it == got.end() ? 0.0 : it->second, error = std::abs(xi / value - 1.0);
    std::printf("%-12s %12.6g (true %g, relative error %.3g %%)\n", term.c_str(), xi, value, 100.0 * error);
    if (!(error <= tolerance)) ok = false;
  }
  for (const auto& [term, value] : got)
    if (!expected.count(term)) {
      std::printf("%-12s %12.6g (should be 0)\n", term.c_str(), value);
      ok = false;
    }
  if (!ok) std::cerr << "identified: " << rhs << "\n";
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "measured") return measured(argc, argv);
    if (mode == "check") return check(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "sindy_cli_helper: " << e.what() << "\n";
    return 1;
  }
  std::cerr << "usage: sindy_cli_helper measured|check ...\n";
  return 2;
}
