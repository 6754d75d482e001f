#pragma once
// Writes frames (QImage) to an Ogg Theora video (.ogv). The file is written
// under a temporary name and renamed by finish(), so a failed or cancelled
// export leaves nothing behind. The encoding itself is VTK's, behind
// SceneView::VideoEncoder: only the scene view includes VTK.

#include "widgets/scene_view.h"

#include <QImage>
#include <QString>

namespace mbdrom::widgets {

class VideoWriter {
 public:
  VideoWriter();
  ~VideoWriter();  // abandons an unfinished file
  VideoWriter(const VideoWriter&) = delete;
  VideoWriter& operator=(const VideoWriter&) = delete;

  /// Opens `path` for frames of `size` (pixels, cropped to even numbers) at
  /// `rate` frames per second. Returns an error naming the path, empty on success.
  QString open(const QString& path, QSize size, int rate);
  /// Appends a frame (scaled to the opened size if it differs).
  void addFrame(const QImage& frame);
  /// Closes the stream and renames the file into place; returns an error, empty on success.
  QString finish();
  /// Stops and deletes the partial file.
  void abandon();
  int frames() const { return frames_; }

 private:
  SceneView::VideoEncoder encoder_;
  bool open_ = false;
  QString path_, temp_;
  QSize size_;
  int frames_ = 0;
};

}  // namespace mbdrom::widgets
