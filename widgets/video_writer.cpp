#include "widgets/video_writer.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace mbdrom::widgets {

VideoWriter::VideoWriter() = default;

VideoWriter::~VideoWriter() {
  abandon();
}

QString VideoWriter::open(const QString& path, QSize size, int rate) {
  abandon();
  const QFileInfo info(path);
  const QFileInfo dir(info.absolutePath());
  if (!dir.isDir()) return QObject::tr("%1: the folder does not exist").arg(path);
  if (!dir.isWritable()) return QObject::tr("%1: the folder is not writable").arg(path);
  size_ = QSize(size.width() & ~1, size.height() & ~1);
  if (size_.width() < 16 || size_.height() < 16)
    return QObject::tr("%1: the view is too small for a video").arg(path);
  path_ = info.absoluteFilePath();
  temp_ = info.absolutePath() + "/." + info.completeBaseName() + ".part." + info.suffix();
  QFile::remove(temp_);
  encoder_.open(temp_, size_, rate);
  open_ = true;
  frames_ = 0;
  return {};
}

void VideoWriter::addFrame(const QImage& frame) {
  if (!open_) return;
  QImage rgb = frame.convertToFormat(QImage::Format_RGB888);
  if (rgb.size() != size_) rgb = rgb.scaled(size_, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
  encoder_.write(rgb);
  ++frames_;
}

QString VideoWriter::finish() {
  if (!open_) return QObject::tr("no video is open");
  open_ = false;
  // The encoder writes nothing before its first frame: there is no file to close.
  if (frames_ == 0) return QObject::tr("%1: no frames to write").arg(path_);
  if (!encoder_.close() || QFileInfo(temp_).size() == 0) {
    QFile::remove(temp_);
    return QObject::tr("%1: the video could not be written").arg(path_);
  }
  QFile::remove(path_);
  if (!QFile::rename(temp_, path_)) {
    QFile::remove(temp_);
    return QObject::tr("%1: cannot replace the file").arg(path_);
  }
  return {};
}

void VideoWriter::abandon() {
  encoder_.close();
  open_ = false;
  if (!temp_.isEmpty()) QFile::remove(temp_);
}

}  // namespace mbdrom::widgets
