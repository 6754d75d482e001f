#pragma once
/// @file
/// A ZIP archive (PKWARE APPNOTE 6.3) with stored entries (no compression), in memory:
/// what an FMU is. Plain ZIP 2.0 features only, so every unzip tool reads it.

#include <cstdint>
#include <string>
#include <vector>

namespace mbdrom {

class ZipWriter {
 public:
  /// Adds a file `name` ("binaries/linux64/x.so": '/' separated, relative) with `data`;
  /// `executable` sets the Unix mode 0755 instead of 0644.
  void add(const std::string& name, const std::string& data, bool executable = false);
  /// The archive's bytes (local headers and data, central directory, end record).
  std::string finish() const;

 private:
  struct Entry {
    std::string name;
    std::uint32_t crc = 0, size = 0, offset = 0;
    bool executable = false;
  };
  std::vector<Entry> entries_;
  std::string body_;
};

/// CRC-32 (ISO 3309, polynomial 0xEDB88320) of `data`, as ZIP records it.
std::uint32_t crc32(const std::string& data);

}  // namespace mbdrom
