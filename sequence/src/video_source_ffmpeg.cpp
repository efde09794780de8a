// Video frames through FFmpeg's libraries (libavformat demuxes, libavcodec decodes, libswscale
// converts any pixel format and size to grey float). Built only where CMake found them.
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include <cstring>
#include <filesystem>

#include "gausslab/sequence/frame_source.hpp"

namespace gausslab {

namespace {

std::string av_message(int code) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(code, text, sizeof(text));
  return text;
}

std::string in_quotes(const std::string& s) { return "'" + s + "'"; }

class VideoSource final : public FrameSource {
 public:
  explicit VideoSource(std::string path) : path_(std::move(path)) {
    open();
    count_ = count_frames();
    if (count_ == 0) {
      close();
      throw SequenceInputError(in_quotes(path_) + " holds no video frames");
    }
  }
  ~VideoSource() override { close(); }
  VideoSource(const VideoSource&) = delete;
  VideoSource& operator=(const VideoSource&) = delete;

  std::string description() const override {
    return "video " + in_quotes(path_) + " (" + codec_name_ + ", " + std::to_string(width_) + "x" +
           std::to_string(height_) + "): " + std::to_string(count_) + " frames";
  }
  int frame_count() const override { return count_; }

  void rewind() override {
    close();
    open();
  }

  std::optional<SourceFrame> next() override {
    while (true) {
      const int received = avcodec_receive_frame(codec_, frame_);
      if (received == 0) return convert();
      if (received == AVERROR_EOF) return std::nullopt;
      if (received != AVERROR(EAGAIN)) return failed_frame("cannot decode: " + av_message(received));
      if (flushed_) return std::nullopt;
      const int read = av_read_frame(format_, packet_);
      if (read == AVERROR_EOF) {
        avcodec_send_packet(codec_, nullptr);  // drain the decoder's delayed frames
        flushed_ = true;
        continue;
      }
      if (read < 0) return failed_frame("cannot read the file: " + av_message(read), true);
      if (packet_->stream_index != stream_index_) {
        av_packet_unref(packet_);
        continue;
      }
      const int sent = avcodec_send_packet(codec_, packet_);
      av_packet_unref(packet_);
      if (sent < 0 && sent != AVERROR(EAGAIN)) return failed_frame("damaged data: " + av_message(sent));
    }
  }

 private:
  void open() {
    int status = avformat_open_input(&format_, path_.c_str(), nullptr, nullptr);
    if (status < 0)
      throw SequenceInputError("cannot open " + in_quotes(path_) + " as a video: " + av_message(status) +
                               " (give a folder of frames, or a video FFmpeg reads)");
    status = avformat_find_stream_info(format_, nullptr);
    if (status < 0) fail("cannot read its streams: " + av_message(status));
    const AVCodec* codec = nullptr;
    stream_index_ = av_find_best_stream(format_, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (stream_index_ < 0 || !codec) fail("it has no video stream this FFmpeg can decode");
    codec_ = avcodec_alloc_context3(codec);
    if (!codec_) fail("out of memory");
    avcodec_parameters_to_context(codec_, format_->streams[stream_index_]->codecpar);
    codec_->thread_count = 0;  // FFmpeg picks
    status = avcodec_open2(codec_, codec, nullptr);
    if (status < 0) fail("cannot start its decoder: " + av_message(status));
    codec_name_ = codec->name;
    width_ = codec_->width;
    height_ = codec_->height;
    packet_ = av_packet_alloc();
    frame_ = av_frame_alloc();
    if (!packet_ || !frame_) fail("out of memory");
    next_index_ = 0;
    flushed_ = false;
  }

  [[noreturn]] void fail(const std::string& why) {
    close();
    throw SequenceInputError("cannot use " + in_quotes(path_) + " as a video: " + why);
  }

  void close() {
    if (sws_) sws_freeContext(sws_);
    sws_ = nullptr;
    av_frame_free(&frame_);
    av_packet_free(&packet_);
    avcodec_free_context(&codec_);
    if (format_) avformat_close_input(&format_);
  }

  // The container's count when it states one; otherwise the video packets, by a pass over the file.
  int count_frames() {
    const AVStream* stream = format_->streams[stream_index_];
    if (stream->nb_frames > 0) return static_cast<int>(stream->nb_frames);
    int count = 0;
    while (av_read_frame(format_, packet_) >= 0) {
      if (packet_->stream_index == stream_index_) ++count;
      av_packet_unref(packet_);
    }
    rewind();
    return count;
  }

  SourceFrame failed_frame(const std::string& why, bool stop = false) {
    SourceFrame f;
    f.index = next_index_++;
    f.name = "frame " + std::to_string(f.index);
    f.error = why;
    if (stop) flushed_ = true;
    return f;
  }

  SourceFrame convert() {
    SourceFrame f;
    f.index = next_index_++;
    f.name = "frame " + std::to_string(f.index);
    const int w = frame_->width, h = frame_->height;
    const auto format = static_cast<AVPixelFormat>(frame_->format);
    sws_ = sws_getCachedContext(sws_, w, h, format, w, h, AV_PIX_FMT_GRAYF32, SWS_POINT, nullptr, nullptr, nullptr);
    if (!sws_) {
      const char* name = av_get_pix_fmt_name(format);
      f.error = std::string("cannot convert its pixel format ") + (name ? name : "?") + " to grey";
      av_frame_unref(frame_);
      return f;
    }
    f.image = ImageF32(w, h);
    uint8_t* planes[4] = {reinterpret_cast<uint8_t*>(f.image.data()), nullptr, nullptr, nullptr};
    int strides[4] = {static_cast<int>(f.image.pitch_bytes()), 0, 0, 0};
    sws_scale(sws_, frame_->data, frame_->linesize, 0, h, planes, strides);
    av_frame_unref(frame_);
    return f;
  }

  std::string path_, codec_name_;
  AVFormatContext* format_ = nullptr;
  AVCodecContext* codec_ = nullptr;
  SwsContext* sws_ = nullptr;
  AVPacket* packet_ = nullptr;
  AVFrame* frame_ = nullptr;
  int stream_index_ = -1, count_ = 0, next_index_ = 0, width_ = 0, height_ = 0;
  bool flushed_ = false;
};

}  // namespace

std::unique_ptr<FrameSource> open_video(const std::string& path) { return std::make_unique<VideoSource>(path); }

bool video_support_available() { return true; }

std::string video_support_note() {
  return std::string("video through FFmpeg (libavformat ") + AV_STRINGIFY(LIBAVFORMAT_VERSION) + ")";
}

}  // namespace gausslab
