#pragma once
// Folders and files of the engine tests. Each test file gets folders of its
// own (named after the file, so two test programs running at once never share
// one) without defining its own helper.

#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "tests/test_paths.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace mbdrom::test {

/// The path of folder `name` of the calling test file in the system's temporary folder, removed.
/// (__builtin_FILE: clang 14 with libstdc++ 12 has no std::source_location.)
inline std::filesystem::path freshPath(const std::string& name, const char* caller = __builtin_FILE()) {
  const std::string file = std::filesystem::path(caller).stem().string();
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("mbdrom_" + file + "_" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

/// Folder `name` of the calling test file in the system's temporary folder, created empty.
inline std::filesystem::path freshDir(const std::string& name, const char* caller = __builtin_FILE()) {
  const std::filesystem::path dir = freshPath(name, caller);
  std::filesystem::create_directories(dir);
  return dir;
}

/// The example mechanism resources/examples/`file` (with its extension).
inline Model readExample(const std::string& file) {
  return readModel(sourcePath("/resources/examples/") + file);
}

/// A mechanism written from an outside definition, tests/data/mechanisms/`file`.
inline Model readOutsideMechanism(const std::string& file) {
  return readModel(sourcePath("/tests/data/mechanisms/") + file);
}

/// The mechanism file at `relative`, a path from the source tree's root.
inline Model readSourceModel(const std::string& relative) {
  return readModel(sourcePath() + "/" + relative);
}

/// The bytes of a file ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace mbdrom::test
