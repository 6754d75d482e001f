#pragma once
/// @file
/// Parsing JSON from exchanged files: nesting beyond kMaxJsonDepth and
/// duplicate keys (which the parser would resolve silently, last one wins) are
/// refused with a FileError naming the source.

#include "engine/core/error.h"
#include "engine/core/file_io.h"
#include "engine/core/monitor.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <iterator>
#include <set>
#include <string>
#include <vector>

namespace mbdrom {

namespace internal {

// A character iterator that publishes how far the parser has read, so that the
// parser's callback can report progress through a large file.
struct PublishingIterator {
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;
  const char* at = nullptr;
  const char** published = nullptr;
  reference operator*() const { return *at; }
  PublishingIterator& operator++() {
    *published = ++at;
    return *this;
  }
  PublishingIterator operator++(int) {
    PublishingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const PublishingIterator& other) const { return at == other.at; }
};

}  // namespace internal

/// Parses `text` (nlohmann::json or nlohmann::ordered_json); `source` names it
/// in messages. Throws FileError. With a monitor, reports the bytes read as
/// progress of `stage` (total: the text's size) and throws Cancelled on a stop.
template <typename JsonT>
JsonT parseJsonInput(const std::string& text, const std::string& source, Monitor* monitor = nullptr,
                     const std::string& stage = {}) {
  std::vector<std::set<std::string>> keys;  // one per open object
  const char* read = text.data();
  long long events = 0;
  auto check = [&](int depth, typename JsonT::parse_event_t event, JsonT& parsed) {
    using Event = typename JsonT::parse_event_t;
    if (monitor && (++events & 0xfff) == 0) {
      monitor->report(
          {stage, static_cast<long long>(read - text.data()), static_cast<long long>(text.size()), {}});
      monitor->checkpoint();
    }
    if (depth > kMaxJsonDepth)
      throw FileError(source + ": nested more than " + std::to_string(kMaxJsonDepth) + " levels deep");
    if (event == Event::object_start) {
      keys.emplace_back();
    } else if (event == Event::object_end) {
      if (!keys.empty()) keys.pop_back();
    } else if (event == Event::key && !keys.empty() && parsed.is_string()) {
      const std::string& key = parsed.template get_ref<const std::string&>();
      if (!keys.back().insert(key).second)
        throw FileError(source + ": duplicate key \"" + key + "\" in one object");
    }
    return true;
  };
  try {
    if (!monitor) return JsonT::parse(text, check);
    const internal::PublishingIterator first{text.data(), &read}, last{text.data() + text.size(), &read};
    return JsonT::parse(first, last, check);
  } catch (const typename JsonT::exception& e) {
    throw FileError(source + ": malformed JSON: " + e.what());
  }
}

}  // namespace mbdrom
