#pragma once
// An allocator whose blocks start on an `Align`-byte boundary, for buffers that vector kernels
// read whole cache lines of (a 64-byte AVX-512 load that starts mid-line touches two lines).

#include <cstddef>
#include <new>

namespace mbdrom {

/// std::allocator's interface with every block aligned to `Align` bytes (a power of two, at
/// least alignof(T)): `std::vector<double, AlignedAllocator<double, 64>>`.
template <class T, std::size_t Align>
struct AlignedAllocator {
  static_assert(Align >= alignof(T) && (Align & (Align - 1)) == 0,
                "Align: a power of two, at least alignof(T)");
  using value_type = T;
  template <class U>
  struct rebind {
    using other = AlignedAllocator<U, Align>;
  };

  AlignedAllocator() noexcept = default;
  template <class U>
  explicit AlignedAllocator(const AlignedAllocator<U, Align>& /*other*/) noexcept {}

  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{Align}));
  }
  void deallocate(T* p, std::size_t /*n*/) noexcept { ::operator delete (p, std::align_val_t{Align}); }

  friend bool operator==(const AlignedAllocator& /*a*/, const AlignedAllocator& /*b*/) noexcept {
    return true;
  }
};

}  // namespace mbdrom
