#include "engine/export/zip_writer.h"

#include "engine/core/error.h"

#include <array>
#include <limits>

namespace mbdrom {

namespace {

void put16(std::string& out, std::uint32_t v) {
  out += static_cast<char>(v & 0xffu);
  out += static_cast<char>((v >> 8) & 0xffu);
}

void put32(std::string& out, std::uint32_t v) {
  put16(out, v & 0xffffu);
  put16(out, v >> 16);
}

// 1980-01-01 00:00 in MS-DOS form: a fixed stamp, so an export of the same model is the same bytes.
constexpr std::uint32_t kDosTime = 0, kDosDate = (0u << 9) | (1u << 5) | 1u;

}  // namespace

std::uint32_t crc32(const std::string& data) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xffffffffu;
  for (const char ch : data) c = table[(c ^ static_cast<unsigned char>(ch)) & 0xffu] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

void ZipWriter::add(const std::string& name, const std::string& data, bool executable) {
  constexpr auto kMax = std::numeric_limits<std::uint32_t>::max();
  if (data.size() >= kMax || body_.size() + data.size() + name.size() + 64 >= kMax)
    throw InputError("zip: \"" + name + "\" would make the archive larger than 4 GB (ZIP64 is not written)");
  Entry e{name, crc32(data), static_cast<std::uint32_t>(data.size()),
          static_cast<std::uint32_t>(body_.size()), executable};
  put32(body_, 0x04034b50u);  // local file header
  put16(body_, 20);           // version needed: 2.0
  put16(body_, 0x0800);       // flags: names are UTF-8
  put16(body_, 0);            // stored
  put16(body_, kDosTime);
  put16(body_, kDosDate);
  put32(body_, e.crc);
  put32(body_, e.size);
  put32(body_, e.size);
  put16(body_, static_cast<std::uint32_t>(name.size()));
  put16(body_, 0);
  body_ += name;
  body_ += data;
  entries_.push_back(std::move(e));
}

std::string ZipWriter::finish() const {
  std::string out = body_;
  const auto directoryStart = static_cast<std::uint32_t>(out.size());
  for (const Entry& e : entries_) {
    put32(out, 0x02014b50u);      // central directory header
    put16(out, (3u << 8) | 20u);  // made by: Unix, 2.0 (the external attributes are a Unix mode)
    put16(out, 20);
    put16(out, 0x0800);
    put16(out, 0);
    put16(out, kDosTime);
    put16(out, kDosDate);
    put32(out, e.crc);
    put32(out, e.size);
    put32(out, e.size);
    put16(out, static_cast<std::uint32_t>(e.name.size()));
    put16(out, 0);  // extra
    put16(out, 0);  // comment
    put16(out, 0);  // disk
    put16(out, 0);  // internal attributes
    put32(out, (e.executable ? 0100755u : 0100644u) << 16);
    put32(out, e.offset);
    out += e.name;
  }
  const auto directorySize = static_cast<std::uint32_t>(out.size()) - directoryStart;
  put32(out, 0x06054b50u);  // end of central directory
  put16(out, 0);
  put16(out, 0);
  put16(out, static_cast<std::uint32_t>(entries_.size()));
  put16(out, static_cast<std::uint32_t>(entries_.size()));
  put32(out, directorySize);
  put32(out, directoryStart);
  put16(out, 0);
  return out;
}

}  // namespace mbdrom
