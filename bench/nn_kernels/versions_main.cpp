// Times the versions of the network kernels (engine/nn/dense_kernels.cpp) one processor can run,
// interleaved in one process so that the machine's drift hits them alike: the affine map of each
// layer shape of the default networks and tanh of a hidden layer. Built and run by versions.sh.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#define MBDROM_KERNEL_DECLARATIONS(NS)                                                                     \
  namespace NS {                                                                                           \
  void affine(std::ptrdiff_t rows, std::ptrdiff_t cols, const double* W, const double* b, const double* x, \
              double* z);                                                                                  \
  void tanhValues(const double* z, double* a, std::ptrdiff_t n);                                           \
  }
MBDROM_KERNEL_DECLARATIONS(older)
MBDROM_KERNEL_DECLARATIONS(newer)

namespace {

using Affine = void (*)(std::ptrdiff_t, std::ptrdiff_t, const double*, const double*, const double*, double*);
using Tanh = void (*)(const double*, double*, std::ptrdiff_t);

// The first element of `v` on a 64-byte boundary (a cache line's start).
const double* lineStart(const std::vector<double>& v) {
  std::size_t k = 0;
  while (reinterpret_cast<std::uintptr_t>(v.data() + k) % 64 != 0) ++k;
  return v.data() + k;
}

// Median over `rounds` of the time per call [ns] of `call`, for each of the two versions in turn.
template <class Call>
void report(const char* what, int calls, Call call) {
  constexpr int rounds = 21;
  std::vector<double> ns[2];
  for (int r = 0; r < rounds; ++r)
    for (int k = 0; k < 2; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < calls; ++i) call(k);
      ns[k].push_back(
          std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / calls);
    }
  for (auto& v : ns) std::sort(v.begin(), v.end());
  std::printf("%-22s %9.1f ns %9.1f ns   %.2fx\n", what, ns[0][rounds / 2], ns[1][rounds / 2],
              ns[0][rounds / 2] / ns[1][rounds / 2]);
}

}  // namespace

int main() {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  std::printf("%-22s %12s %12s   %s\n", "kernel", "older", "newer", "older / newer");
  const Affine affine[2] = {older::affine, newer::affine};
  const Tanh tanh[2] = {older::tanhValues, newer::tanhValues};
  for (const auto [rows, cols] : {std::pair{64, 6}, std::pair{64, 64}, std::pair{2, 64}, std::pair{128, 6},
                                  std::pair{128, 128}, std::pair{2, 128}}) {
    std::vector<double> storage(static_cast<std::size_t>(rows * cols) + 8), b(static_cast<std::size_t>(rows)),
        x(static_cast<std::size_t>(cols)), z(static_cast<std::size_t>(rows));
    for (double& v : storage) v = normal(rng);
    for (double& v : b) v = normal(rng);
    for (double& v : x) v = normal(rng);
    const double* W = lineStart(storage);  // as the engine's evaluator keeps them
    char what[32];
    std::snprintf(what, sizeof what, "affine %d x %d", rows, cols);
    // Each call's input depends on the last output: calls cannot overlap or be left out.
    report(what, 200000000 / (rows * cols + 1000), [&](int k) {
      affine[k](rows, cols, W, b.data(), x.data(), z.data());
      x[0] += z[0] * 1e-300;
    });
  }
  // The newer version's affine map with its weights 16 bytes past a cache line's start (where a
  // 16-byte aligned allocation may put them) and on the start.
  std::printf("\n%-22s %12s %12s   %s\n", "newer, W at", "16 B past", "line start", "past / start");
  for (const auto [rows, cols] : {std::pair{64, 64}, std::pair{128, 128}}) {
    const std::size_t size = static_cast<std::size_t>(rows * cols);
    std::vector<double> storage(size + 16), b(static_cast<std::size_t>(rows)),
        x(static_cast<std::size_t>(cols)), z(static_cast<std::size_t>(rows));
    for (double& v : storage) v = normal(rng);
    for (double& v : b) v = normal(rng);
    for (double& v : x) v = normal(rng);
    const double* at[2] = {lineStart(storage) + 2, lineStart(storage)};
    char what[32];
    std::snprintf(what, sizeof what, "affine %d x %d", rows, cols);
    report(what, 200000000 / (rows * cols + 1000), [&](int k) {
      newer::affine(rows, cols, at[k], b.data(), x.data(), z.data());
      x[0] += z[0] * 1e-300;
    });
  }
  std::printf("\n%-22s %12s %12s   %s\n", "kernel", "older", "newer", "older / newer");
  for (const int n : {64, 128}) {
    std::vector<double> z(static_cast<std::size_t>(n)), a(z.size());
    for (double& v : z) v = normal(rng);
    char what[32];
    std::snprintf(what, sizeof what, "tanh of %d", n);
    report(what, 400000, [&](int k) {
      tanh[k](z.data(), a.data(), n);
      z[0] += a[1] * 1e-300;
    });
  }
}
