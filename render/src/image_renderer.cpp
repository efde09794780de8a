#include "gausslab/render/image_renderer.hpp"

#include <algorithm>
#include <cmath>

#include "embedded_shaders.hpp"
#include "shader_program.hpp"

namespace gausslab {

const char* to_string(CompareMode mode) {
  switch (mode) {
    case CompareMode::A: return "a";
    case CompareMode::B: return "b";
    case CompareMode::Split: return "split";
    case CompareMode::Difference: return "diff";
    default: return "?";
  }
}

const char* to_string(Sampling sampling) {
  switch (sampling) {
    case Sampling::Nearest: return "nearest";
    case Sampling::Linear: return "linear";
    case Sampling::Auto: return "auto";
    default: return "?";
  }
}

Sampling sampling_at(Sampling chosen, double zoom) {
  if (chosen != Sampling::Auto) return chosen;
  return zoom >= 1.0 ? Sampling::Nearest : Sampling::Linear;
}

namespace {

// The plain view (image_view_plain.frag) draws it: A, B or split of the 8-bit results, not pooled, the
// identity display transform, no pixel grid. On the NVIDIA H200 the picture's draw at 1920 x 1080
// took the frame's GPU 0.246 ms with the full shader (docs/results/h200/README.md).
bool plain_view(const ImageDrawParams& p) {
  const bool a = p.mode != CompareMode::B, b = p.mode != CompareMode::A;  // the slots it shows
  if (p.mode == CompareMode::Difference) return false;
  if ((p.float_a && p.float_b) || (a && p.pooled_a) || (b && p.pooled_b)) return false;
  if (p.pixel_grid && p.view.zoom >= kPixelGridZoom) return false;
  const DisplayTransform& d = p.display;
  return d.exposure_stops == 0 && d.offset == 0 && d.channel == ChannelView::Rgb && d.transfer == Transfer::Linear &&
         !d.maps_colour() && p.display_range.low == 0 && p.display_range.high == 1;
}

constexpr GLfloat kBackground[3] = {0.13f, 0.13f, 0.14f};  // where no picture is
constexpr GLfloat kDividerColour[3] = {1.0f, 0.85f, 0.2f};  // the split view's divider

struct PlainProgram {
  ShaderProgram program{"image_view_plain", reinterpret_cast<const char*>(embedded::image_view_vert),
                        reinterpret_cast<const char*>(embedded::image_view_plain_frag)};
  GLint u_image = program.uniform("u_image"), u_viewport_origin = program.uniform("u_viewport_origin"),
        u_viewport_size = program.uniform("u_viewport_size"), u_image_size = program.uniform("u_image_size"),
        u_center = program.uniform("u_center"), u_zoom = program.uniform("u_zoom"),
        u_background = program.uniform("u_background"), u_image_b = program.uniform("u_image_b"),
        u_split = program.uniform("u_split"), u_split_x = program.uniform("u_split_x"),
        u_divider_colour = program.uniform("u_divider_colour");
};

}  // namespace

struct ImageRenderer::Impl {
  ShaderProgram program{"image_view", reinterpret_cast<const char*>(embedded::image_view_vert),
                        reinterpret_cast<const char*>(embedded::image_view_frag)};
  PlainProgram plain;
  GLuint empty_vertex_array = 0;  // core profile draws need one bound, even with no attributes
  GLuint samplers[2] = {0, 0};    // nearest, linear: sampler objects, so textures keep no filter state
  GLint u_image_a, u_image_b, u_viewport_origin, u_viewport_size, u_image_size, u_center, u_zoom, u_mode,
      u_split_x, u_gain, u_signed, u_difference, u_unrounded, u_difference_sign, u_exposure_scale, u_offset, u_range_low, u_transfer, u_inverse_gamma, u_channel, u_channel_map, u_float_a, u_float_b, u_float_slots, u_false_colour, u_extent_a, u_extent_b, u_sequential, u_diverging, u_background, u_divider_colour, u_grid;

  Impl() {
    u_image_a = program.uniform("u_image_a");
    u_image_b = program.uniform("u_image_b");
    u_viewport_origin = program.uniform("u_viewport_origin");
    u_viewport_size = program.uniform("u_viewport_size");
    u_image_size = program.uniform("u_image_size");
    u_center = program.uniform("u_center");
    u_zoom = program.uniform("u_zoom");
    u_mode = program.uniform("u_mode");
    u_split_x = program.uniform("u_split_x");
    u_gain = program.uniform("u_gain");
    u_signed = program.uniform("u_signed");
    u_difference = program.uniform("u_difference");
    u_unrounded = program.uniform("u_unrounded");
    u_exposure_scale = program.uniform("u_exposure_scale");
    u_channel = program.uniform("u_channel");
    u_offset = program.uniform("u_offset");
    u_range_low = program.uniform("u_range_low");
    u_transfer = program.uniform("u_transfer");
    u_inverse_gamma = program.uniform("u_inverse_gamma");
    u_channel_map = program.uniform("u_channel_map");
    u_float_a = program.uniform("u_float_a");
    u_float_b = program.uniform("u_float_b");
    u_float_slots = program.uniform("u_float_slots");
    u_difference_sign = program.uniform("u_difference_sign");
    u_extent_a = program.uniform("u_extent_a");
    u_extent_b = program.uniform("u_extent_b");
    u_false_colour = program.uniform("u_false_colour");
    u_sequential = program.uniform("u_sequential");
    u_diverging = program.uniform("u_diverging");
    u_background = program.uniform("u_background");
    u_divider_colour = program.uniform("u_divider_colour");
    u_grid = program.uniform("u_grid");
    glGenVertexArrays(1, &empty_vertex_array);
    glGenSamplers(2, samplers);
    const GLint filters[2] = {GL_NEAREST, GL_LINEAR};
    for (int i = 0; i < 2; ++i) {
      glSamplerParameteri(samplers[i], GL_TEXTURE_MIN_FILTER, filters[i]);
      glSamplerParameteri(samplers[i], GL_TEXTURE_MAG_FILTER, filters[i]);
      glSamplerParameteri(samplers[i], GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
      glSamplerParameteri(samplers[i], GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    }
    gl_check("setting up the image renderer");
  }
  ~Impl() {
    glDeleteSamplers(2, samplers);
    glDeleteVertexArrays(1, &empty_vertex_array);
  }
};

namespace {

void draw_plain(const PlainProgram& plain, GLuint empty_vertex_array, const ImageDrawParams& p, GLuint sampler) {
  glUseProgram(plain.program.id());
  const GLuint texture_b = p.texture_b ? p.texture_b : p.texture_a;
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, texture_b);
  glBindSampler(1, sampler);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, p.mode == CompareMode::B ? texture_b : p.texture_a);
  glBindSampler(0, sampler);
  glUniform1i(plain.u_image, 0);
  glUniform1i(plain.u_image_b, 1);
  glUniform1i(plain.u_split, p.mode == CompareMode::Split ? 1 : 0);
  glUniform1f(plain.u_split_x, static_cast<float>(p.split_x));
  glUniform3fv(plain.u_divider_colour, 1, kDividerColour);
  glUniform2f(plain.u_viewport_origin, static_cast<float>(p.viewport_x), static_cast<float>(p.viewport_y));
  glUniform2f(plain.u_viewport_size, static_cast<float>(p.viewport_width), static_cast<float>(p.viewport_height));
  glUniform2f(plain.u_image_size, static_cast<float>(p.image_width), static_cast<float>(p.image_height));
  glUniform2f(plain.u_center, static_cast<float>(p.view.center.x), static_cast<float>(p.view.center.y));
  glUniform1f(plain.u_zoom, static_cast<float>(p.view.zoom));
  glUniform3fv(plain.u_background, 1, kBackground);
  glBindVertexArray(empty_vertex_array);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glBindSampler(0, 0);
  glBindTexture(GL_TEXTURE_2D, 0);
  glActiveTexture(GL_TEXTURE1);
  glBindSampler(1, 0);
  glBindTexture(GL_TEXTURE_2D, 0);
  glActiveTexture(GL_TEXTURE0);
  glUseProgram(0);
}

}  // namespace

ImageRenderer::ImageRenderer() : impl_(std::make_unique<Impl>()) {}
ImageRenderer::~ImageRenderer() = default;

void ImageRenderer::draw(const ImageDrawParams& p) {
  Impl& r = *impl_;
  glViewport(p.viewport_x, p.viewport_y, p.viewport_width, p.viewport_height);
  glDisable(GL_BLEND);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_CULL_FACE);
  const GLuint sampler = r.samplers[sampling_at(p.sampling, p.view.zoom) == Sampling::Nearest ? 0 : 1];
  if (plain_view(p)) {
    draw_plain(r.plain, r.empty_vertex_array, p, sampler);
    return;
  }
  glUseProgram(r.program.id());
  const GLuint texture_b = p.texture_b ? p.texture_b : p.texture_a;
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, p.texture_a);
  glBindSampler(0, sampler);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, texture_b);
  glBindSampler(1, sampler);
  glActiveTexture(GL_TEXTURE2);
  glBindTexture(GL_TEXTURE_2D, p.difference_texture ? p.difference_texture : p.texture_a);
  glBindSampler(2, sampler);
  const bool float_slots = p.float_a && p.float_b;
  glActiveTexture(GL_TEXTURE3);
  glBindTexture(GL_TEXTURE_2D, float_slots ? p.float_a : p.texture_a);
  glBindSampler(3, sampler);
  glActiveTexture(GL_TEXTURE4);
  glBindTexture(GL_TEXTURE_2D, float_slots ? p.float_b : p.texture_a);
  glBindSampler(4, sampler);
  glUniform1i(r.u_float_a, 3);
  glUniform1i(r.u_float_b, 4);
  glUniform1i(r.u_float_slots, float_slots ? 1 : 0);
  glUniform1i(r.u_image_a, 0);
  glUniform1i(r.u_image_b, 1);
  glUniform1i(r.u_difference, 2);
  glUniform1i(r.u_unrounded, p.difference_texture ? 1 : 0);
  glUniform1f(r.u_difference_sign, p.difference_swapped ? -1.0f : 1.0f);
  // The range and the exposure make one scale: (v - low) / (high - low) * 2^stops.
  const DisplayRange& range = p.display_range;
  const double range_width = range.high > range.low ? range.high - range.low : 1.0;
  glUniform1f(r.u_exposure_scale, static_cast<float>(std::exp2(p.display.exposure_stops) / range_width));
  glUniform1f(r.u_range_low, static_cast<float>(range.low));
  glUniform1f(r.u_offset, static_cast<float>(p.display.offset));
  glUniform1i(r.u_channel, static_cast<int>(p.display.channel));
  glUniform1i(r.u_transfer, static_cast<int>(p.display.transfer));
  glUniform1f(r.u_inverse_gamma, static_cast<float>(1.0 / std::clamp(p.display.gamma, kMinDisplayGamma, kMaxDisplayGamma)));
  glUniform1i(r.u_channel_map, p.display.maps_colour() ? 1 : 0);
  glUniform2f(r.u_viewport_origin, static_cast<float>(p.viewport_x), static_cast<float>(p.viewport_y));
  glUniform2f(r.u_viewport_size, static_cast<float>(p.viewport_width), static_cast<float>(p.viewport_height));
  glUniform2f(r.u_image_size, static_cast<float>(p.image_width), static_cast<float>(p.image_height));
  glUniform2f(r.u_center, static_cast<float>(p.view.center.x), static_cast<float>(p.view.center.y));
  glUniform1f(r.u_zoom, static_cast<float>(p.view.zoom));
  glUniform1i(r.u_mode, static_cast<int>(p.mode));
  glUniform1f(r.u_split_x, static_cast<float>(p.split_x));
  glUniform1f(r.u_gain, static_cast<float>(p.gain));
  glUniform1i(r.u_signed, p.signed_difference ? 1 : 0);
  const float pooled_w = static_cast<float>(p.image_width / 2 * 2), pooled_h = static_cast<float>(p.image_height / 2 * 2);
  glUniform2f(r.u_extent_a, p.pooled_a ? pooled_w : static_cast<float>(p.image_width),
              p.pooled_a ? pooled_h : static_cast<float>(p.image_height));
  glUniform2f(r.u_extent_b, p.pooled_b ? pooled_w : static_cast<float>(p.image_width),
              p.pooled_b ? pooled_h : static_cast<float>(p.image_height));
  glUniform1i(r.u_false_colour, p.false_colour ? 1 : 0);
  glUniform3fv(r.u_sequential, kColourMapPoints, kSequentialMap[0].data());
  glUniform3fv(r.u_diverging, kColourMapPoints, kDivergingMap[0].data());
  glUniform3fv(r.u_background, 1, kBackground);
  glUniform3fv(r.u_divider_colour, 1, kDividerColour);
  glUniform1i(r.u_grid, p.pixel_grid && p.view.zoom >= kPixelGridZoom ? 1 : 0);
  glBindVertexArray(r.empty_vertex_array);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glBindSampler(0, 0);
  glBindSampler(1, 0);
  for (GLuint unit = 2; unit <= 4; ++unit) {
    glBindSampler(unit, 0);
    glActiveTexture(GL_TEXTURE0 + unit);
    glBindTexture(GL_TEXTURE_2D, 0);
  }
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, 0);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, 0);
  glUseProgram(0);
}

}  // namespace gausslab
