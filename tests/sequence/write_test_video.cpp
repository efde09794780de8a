// write_test_video OUT.mkv FRAMES W H SEED [--odd-frame K WxH]: the synthetic sky as a lossless
// video (FFV1, 16-bit grey, Matroska) for the CLI test of the video source. Built only with FFmpeg.
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gausslab/sequence/synthetic.hpp"

namespace {

int fail(const char* what, int code) {
  char text[256] = {};
  av_strerror(code, text, sizeof(text));
  std::fprintf(stderr, "write_test_video: %s: %s\n", what, text);
  return 1;
}

int write_packets(AVCodecContext* codec, AVFormatContext* format, AVStream* stream, AVPacket* packet) {
  int status;
  while ((status = avcodec_receive_packet(codec, packet)) == 0) {
    av_packet_rescale_ts(packet, codec->time_base, stream->time_base);
    packet->stream_index = stream->index;
    if ((status = av_interleaved_write_frame(format, packet)) < 0) return status;
  }
  return status == AVERROR(EAGAIN) || status == AVERROR_EOF ? 0 : status;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: write_test_video OUT.mkv FRAMES WIDTH HEIGHT SEED\n");
    return 2;
  }
  gausslab::SyntheticSpec spec;
  spec.frames = std::atoi(argv[2]);
  spec.width = std::atoi(argv[3]);
  spec.height = std::atoi(argv[4]);
  spec.seed = std::strtoull(argv[5], nullptr, 10);
  const gausslab::SyntheticSequence sky(spec);

  AVFormatContext* format = nullptr;
  int status = avformat_alloc_output_context2(&format, nullptr, nullptr, argv[1]);
  if (status < 0) return fail("output format", status);
  const AVCodec* encoder = avcodec_find_encoder(AV_CODEC_ID_FFV1);
  if (!encoder) return fail("no FFV1 encoder", AVERROR_ENCODER_NOT_FOUND);
  AVStream* stream = avformat_new_stream(format, nullptr);
  AVCodecContext* codec = avcodec_alloc_context3(encoder);
  codec->width = spec.width;
  codec->height = spec.height;
  codec->pix_fmt = AV_PIX_FMT_GRAY16LE;
  codec->time_base = AVRational{1, 25};
  if (format->oformat->flags & AVFMT_GLOBALHEADER) codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  if ((status = avcodec_open2(codec, encoder, nullptr)) < 0) return fail("open encoder", status);
  avcodec_parameters_from_context(stream->codecpar, codec);
  stream->time_base = codec->time_base;
  if ((status = avio_open(&format->pb, argv[1], AVIO_FLAG_WRITE)) < 0) return fail("open file", status);
  if ((status = avformat_write_header(format, nullptr)) < 0) return fail("header", status);

  AVFrame* frame = av_frame_alloc();
  AVPacket* packet = av_packet_alloc();
  frame->format = codec->pix_fmt;
  frame->width = spec.width;
  frame->height = spec.height;
  av_frame_get_buffer(frame, 0);
  for (int t = 0; t < spec.frames; ++t) {
    av_frame_make_writable(frame);
    const gausslab::ImageF32 image = sky.frame(t);
    for (int y = 0; y < spec.height; ++y) {
      auto* row = reinterpret_cast<uint16_t*>(frame->data[0] + y * frame->linesize[0]);
      for (int x = 0; x < spec.width; ++x) row[x] = static_cast<uint16_t>(image.at(x, y) * 65535.0f + 0.5f);
    }
    frame->pts = t;
    if ((status = avcodec_send_frame(codec, frame)) < 0) return fail("encode", status);
    if ((status = write_packets(codec, format, stream, packet)) < 0) return fail("write", status);
  }
  avcodec_send_frame(codec, nullptr);
  if ((status = write_packets(codec, format, stream, packet)) < 0) return fail("flush", status);
  av_write_trailer(format);
  avio_closep(&format->pb);
  av_packet_free(&packet);
  av_frame_free(&frame);
  avcodec_free_context(&codec);
  avformat_free_context(format);
  return 0;
}
