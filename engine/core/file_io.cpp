#include "engine/core/file_io.h"

#include "engine/core/error.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

namespace mbdrom {

namespace {

namespace fs = std::filesystem;

std::string systemError() {
  return std::strerror(errno);
}

std::string kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

// Writes [data, data + size); returns the bytes written (less than size: errno set).
std::size_t writeAll(int fd, const char* data, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return done;
    }
    done += static_cast<std::size_t>(n);
  }
  return done;
}

// `.NAME<suffix>` next to target: hidden, and in the target's folder (same file system, so rename is atomic).
std::string sibling(const std::string& target, const std::string& suffix) {
  const fs::path p(target);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  return (dir / ("." + p.filename().string() + suffix)).string();
}

// `.NAME.XXXXXX.part` next to target, created exclusively (mkstemps).
int createTemporary(const std::string& target, std::string& temp) {
  std::string name = sibling(target, ".XXXXXX.part");
  const int fd = ::mkstemps(name.data(), 5);
  if (fd < 0) throw FileError(target + ": cannot create a temporary file next to it: " + systemError());
  ::fchmod(fd, 0644);
  temp = name;
  return fd;
}

// The temporaries of `target` left by killed writers; called with the target's lock held.
void removeStaleTemporaries(const std::string& target) {
  const fs::path p(target);
  const std::string file = p.filename().string();
  if (file.empty()) return;
  std::error_code ec;
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const fs::path entry = it->path();
    if (!isTemporaryOf(entry.filename().string(), file)) continue;
    std::error_code ignored;
    const fs::file_status status = fs::symlink_status(entry, ignored);
    if (fs::is_regular_file(status))
      fs::remove(entry, ignored);
    else if (fs::is_directory(status))
      fs::remove_all(entry, ignored);  // never follows links inside
  }
}

}  // namespace

bool isTemporaryOf(const std::string& name, const std::string& file) {
  const std::string prefix = "." + file + ".";
  const std::string suffix = ".part";
  if (name.size() != prefix.size() + 6 + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  for (std::size_t i = prefix.size(); i < prefix.size() + 6; ++i) {
    const char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

std::string readRegularFile(const std::string& path, std::uint64_t maxBytes, const std::string& what) {
  // Non-blocking: opening a FIFO with no writer must not hang; fstat decides.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw FileError(path + ": cannot open the " + what + ": " + systemError());
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const std::string why = systemError();
    ::close(fd);
    throw FileError(path + ": cannot read the " + what + ": " + why);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw FileError(path + ": the " + what + " is " + kindOf(st.st_mode) + ", not a regular file");
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > maxBytes) {
    ::close(fd);
    throw FileError(path + ": the " + what + " is " + std::to_string(size) +
                    " bytes, more than the limit of " + std::to_string(maxBytes));
  }
  std::string text;
  text.resize(static_cast<std::size_t>(size));
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string why = systemError();
      ::close(fd);
      throw FileError(path + ": read error in the " + what + ": " + why);
    }
    if (n == 0) break;  // shrank while reading
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  ::close(fd);
  return text;
}

void copyFileAtomically(const std::string& from, const std::string& to) {
  writeFileAtomically(to, readRegularFile(from, kMaxCsvFileBytes, "file to copy"));
}

std::string makeTemporaryDirectory(const std::string& target) {
  std::string name = sibling(target, ".XXXXXX");
  if (!::mkdtemp(name.data()))
    throw FileError(target + ": cannot create a temporary folder next to it: " + systemError());
  const std::string withSuffix = name + ".part";  // no suffix form of mkdtemp
  if (::rename(name.c_str(), withSuffix.c_str()) != 0) {
    ::rmdir(name.c_str());
    throw FileError(target + ": cannot name the temporary folder: " + systemError());
  }
  return withSuffix;
}

// ---------------------------------------------------------------- WriteLock

std::string WriteLock::lockPath(const std::string& target) {
  return sibling(target, ".lock");
}

WriteLock::WriteLock(const std::string& target) : path_(lockPath(target)) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    // A lock file that was there before belongs to a writer that still runs or was killed
    // (a clean release removes it): only then can temporaries of the target be left over.
    int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    const bool leftBehind = fd < 0 && errno == EEXIST;
    if (leftBehind) fd = ::open(path_.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 && leftBehind && errno == ENOENT) continue;  // released meanwhile: create it
    if (fd < 0) throw FileError(target + ": cannot create the lock file " + path_ + ": " + systemError());
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK)
        throw FileError(target + " is being written by another process (lock " + path_ +
                        "); wait for it to finish or write elsewhere");
      throw FileError(target + ": cannot lock " + path_ + ": " + std::strerror(err));
    }
    // A holder that released between our open and flock may have removed the
    // file: then we hold a lock nobody else can see; try again.
    struct stat held {
    }, named{};
    if (::fstat(fd, &held) == 0 && ::stat(path_.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev) {
      fd_ = fd;
      if (leftBehind) removeStaleTemporaries(target);
      return;
    }
    ::close(fd);
  }
  throw FileError(target + ": cannot lock " + path_ + " (it keeps changing)");
}

WriteLock::~WriteLock() {
  release();
}

WriteLock::WriteLock(WriteLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

WriteLock& WriteLock::operator=(WriteLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

void WriteLock::release() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // while still locked: a waiter re-checks the inode
  ::close(fd_);
  fd_ = -1;
}

// ---------------------------------------------------------------- atomic writes

AtomicFileWriter::AtomicFileWriter(std::string target) : AtomicFileWriter(std::move(target), WriteLock()) {}

AtomicFileWriter::AtomicFileWriter(std::string target, WriteLock held)
    : target_(std::move(target)), lock_(std::move(held)) {
  if (!lock_.held()) lock_ = WriteLock(target_);
  struct stat st {};
  if (::stat(target_.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw FileError(target_ + ": is a directory, not a file name");
  fd_ = createTemporary(target_, temp_);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temp_.c_str());
  }
}

void AtomicFileWriter::append(const std::string& piece) {
  if (fd_ < 0) throw FileError(target_ + ": the file is already complete");
  buffer_ += piece;
  pieceEnds_.push_back(buffer_.size());
  if (buffer_.size() >= (1u << 16)) flush();
}

void AtomicFileWriter::flush() {
  if (buffer_.empty()) return;
  const std::size_t written = writeAll(fd_, buffer_.data(), buffer_.size());
  if (written < buffer_.size()) {
    const std::string why = systemError();
    // Keep the pieces that reached the disk whole; cut the one in the middle.
    std::size_t whole = 0;
    for (std::size_t end : pieceEnds_)
      if (end <= written) whole = end;
    committed_ += whole;
    if (::ftruncate(fd_, static_cast<off_t>(committed_)) == 0)
      ::lseek(fd_, static_cast<off_t>(committed_), SEEK_SET);
    buffer_.clear();
    pieceEnds_.clear();
    throw FileError(target_ + ": write failed (" + why + "; disk full?)");
  }
  committed_ += buffer_.size();
  buffer_.clear();
  pieceEnds_.clear();
}

void AtomicFileWriter::commit() {
  if (fd_ < 0) throw FileError(target_ + ": the file is already complete");
  flush();  // on failure the writer stays open with its complete rows (commitAs can keep them)
  if (::fsync(fd_) != 0) throw FileError(temp_ + ": cannot flush to disk: " + systemError());
  renameTo(target_);
}

void AtomicFileWriter::commitAs(const std::string& path) {
  if (fd_ < 0) throw FileError(target_ + ": the file is already complete");
  std::string failure;
  try {
    flush();
  } catch (const FileError& e) {
    failure = e.what();  // the whole rows stay; keep them under `path`, then say so
  }
  ::fsync(fd_);
  renameTo(path);
  if (!failure.empty()) throw FileError(path + ": " + failure);
}

void AtomicFileWriter::renameTo(const std::string& path) {
  if (::rename(temp_.c_str(), path.c_str()) != 0)
    throw FileError(temp_ + ": cannot rename to " + path + ": " + systemError());
  ::close(fd_);
  fd_ = -1;
  lock_ = WriteLock();  // complete: the next writer may go ahead
}

void writeFileAtomically(const std::string& path, const std::string& text) {
  writeFileAtomically(path, text, WriteLock());
}

void writeFileAtomically(const std::string& path, const std::string& text, WriteLock held) {
  AtomicFileWriter out(path, std::move(held));
  out.append(text);
  out.commit();  // a failure leaves the target as it was; the destructor removes the temporary file
}

}  // namespace mbdrom
