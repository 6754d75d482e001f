#include "widgets/video_writer.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cstring>

#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkOggTheoraWriter.h>
#include <vtkPointData.h>
#include <vtkUnsignedCharArray.h>

namespace mbdrom::widgets {

struct VideoWriter::Vtk {
  vtkNew<vtkImageData> image;
  vtkNew<vtkOggTheoraWriter> writer;
  bool open = false;
  // VTK's Theora writer must see a frame between Start() and End(): its End()
  // flushes an encoder that only the first Write() sets up. So it starts lazily.
  bool started = false;
};

VideoWriter::VideoWriter() : vtk_(std::make_unique<Vtk>()) {}

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
  vtk_->image->SetDimensions(size_.width(), size_.height(), 1);
  vtk_->image->AllocateScalars(VTK_UNSIGNED_CHAR, 3);
  vtk_->writer->SetInputData(vtk_->image);
  vtk_->writer->SetFileName(QFile::encodeName(temp_).constData());
  vtk_->writer->SetRate(rate);
  vtk_->writer->SetQuality(2);
  vtk_->writer->SetSubsampling(1);
  vtk_->open = true;
  vtk_->started = false;
  frames_ = 0;
  return {};
}

void VideoWriter::addFrame(const QImage& frame) {
  if (!vtk_->open) return;
  QImage rgb = frame.convertToFormat(QImage::Format_RGB888);
  if (rgb.size() != size_) rgb = rgb.scaled(size_, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
  auto* out = static_cast<unsigned char*>(vtk_->image->GetScalarPointer());
  const int w = size_.width(), h = size_.height();
  // VTK images start at the bottom row.
  for (int y = 0; y < h; ++y)
    std::memcpy(out + static_cast<std::size_t>(y) * w * 3, rgb.constScanLine(h - 1 - y),
                static_cast<std::size_t>(w) * 3);
  vtk_->image->Modified();
  if (!vtk_->started) {
    vtk_->writer->Start();
    vtk_->started = true;
  }
  vtk_->writer->Write();
  ++frames_;
}

QString VideoWriter::finish() {
  if (!vtk_->open) return QObject::tr("no video is open");
  if (!vtk_->started) {
    vtk_->open = false;
    return QObject::tr("%1: no frames to write").arg(path_);
  }
  vtk_->writer->End();
  vtk_->open = false;
  vtk_->started = false;
  if (vtk_->writer->GetError() || QFileInfo(temp_).size() == 0) {
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
  if (vtk_->open && vtk_->started) vtk_->writer->End();
  vtk_->open = false;
  vtk_->started = false;
  if (!temp_.isEmpty()) QFile::remove(temp_);
}

}  // namespace mbdrom::widgets
