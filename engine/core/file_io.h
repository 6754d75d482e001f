#pragma once
/// @file
/// Reading and writing exchanged files safely: readers refuse special files
/// and sizes beyond documented limits before allocating; writers create a
/// unique temporary file next to the target, rename it over the target when
/// complete, and hold an advisory lock so that two writers of one path never
/// interleave (docs/reliability.md).

#include <cstdint>
#include <string>
#include <vector>

namespace mbdrom {

/// Size limits of exchanged files [bytes].
inline constexpr std::uint64_t kMaxModelFileBytes = 64ull << 20;    ///< model and project manifest JSON
inline constexpr std::uint64_t kMaxTrainedModelBytes = 1ull << 30;  ///< trained reduced models, datasets
inline constexpr std::uint64_t kMaxCsvFileBytes = 4ull << 30;       ///< trajectory and table CSV
/// Deepest JSON nesting any reader accepts (model files use at most ~10).
inline constexpr int kMaxJsonDepth = 256;

/// The whole content of the regular file at `path`. The file is opened
/// non-blocking and checked with fstat: a directory, FIFO, socket or device is
/// refused, and so is a file above `maxBytes`. Throws FileError naming `path`
/// and `what` (e.g. "model file").
std::string readRegularFile(const std::string& path, std::uint64_t maxBytes, const std::string& what);

class WriteLock;

/// Writes `text` to `path` atomically: a unique temporary file created
/// exclusively next to it (`.NAME.XXXXXX.part`), flushed to disk, renamed over
/// `path`. The target is locked for the write (WriteLock), or `held`, a lock of
/// `path` the caller took earlier, is used. Throws FileError.
void writeFileAtomically(const std::string& path, const std::string& text);
void writeFileAtomically(const std::string& path, const std::string& text, WriteLock held);

/// Copies the regular file `from` (read as readRegularFile, up to the CSV
/// limit) to `to` atomically. Throws FileError.
void copyFileAtomically(const std::string& from, const std::string& to);

/// Whether `name` (a file name, no folder) is `.FILE.XXXXXX.part`: a temporary file or
/// folder of a writer of FILE (writeFileAtomically, AtomicFileWriter, makeTemporaryDirectory).
bool isTemporaryOf(const std::string& name, const std::string& file);

/// A new, empty directory next to `target` with a unique name
/// (`.NAME.XXXXXX.part`, mkdtemp), for an export built there and renamed to
/// `target` when complete. Hold target's WriteLock while the folder exists.
/// Throws FileError.
std::string makeTemporaryDirectory(const std::string& target);

/// An advisory lock (flock) on `.NAME.lock` next to a file: while held, a
/// second WriteLock on the same path, in this or another process, is refused
/// at once. The lock file is removed on release.
///
/// Every writer of a target takes its lock before it creates a temporary file
/// or folder (`.NAME.XXXXXX.part`) next to it, so whoever holds the lock knows
/// that the temporaries of that target it did not make belong to writers that
/// were killed: taking the lock removes them. Nothing else removes a
/// temporary file another program may be writing.
class WriteLock {
 public:
  WriteLock() = default;
  /// Throws FileError "... is being written by another process" when held elsewhere.
  /// Removes the temporaries killed writers of `target` left next to it.
  explicit WriteLock(const std::string& target);
  ~WriteLock();
  WriteLock(WriteLock&& other) noexcept;
  WriteLock& operator=(WriteLock&& other) noexcept;
  WriteLock(const WriteLock&) = delete;
  WriteLock& operator=(const WriteLock&) = delete;

  /// The lock file of `target`.
  static std::string lockPath(const std::string& target);
  bool held() const { return fd_ >= 0; }

 private:
  void release();
  int fd_ = -1;
  std::string path_;
};

/// A file written in pieces (rows) and renamed into place at the end: a
/// unique temporary file next to the target, under the target's WriteLock.
/// Only whole pieces reach the disk: when a write fails (disk full), the file
/// is cut back to the last complete piece, so a partial file never ends in
/// the middle of a row.
class AtomicFileWriter {
 public:
  /// Locks `target` and creates the temporary file. Throws FileError.
  explicit AtomicFileWriter(std::string target);
  /// As above with `held`, a lock of `target` the caller took earlier (taken here when not held).
  AtomicFileWriter(std::string target, WriteLock held);
  /// Removes the temporary file if neither commit nor keepAs was called.
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  /// Appends one complete piece (buffered). Throws FileError when the disk
  /// refuses it; what was written before stays, whole.
  void append(const std::string& piece);
  /// Writes the buffer, syncs and renames the file to the target. Throws FileError.
  void commit();
  /// As commit, to another path (e.g. the partial file of a stopped run).
  void commitAs(const std::string& path);
  const std::string& target() const { return target_; }
  const std::string& temporaryPath() const { return temp_; }

 private:
  void flush();
  void renameTo(const std::string& path);
  std::string target_, temp_;
  WriteLock lock_;
  int fd_ = -1;
  std::string buffer_;
  std::vector<std::size_t> pieceEnds_;  // ends of the pieces in buffer_
  std::uint64_t committed_ = 0;         // bytes on disk that end with a complete piece
};

}  // namespace mbdrom
