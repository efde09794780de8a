#version 330 core
// Draws the result image(s) with zoom and pan, and the comparison views: A, B, a split A|B with a
// divider, or the difference A - B (absolute or signed, grey or through a colour map) of the 8-bit
// results or, once the numbers are in, of their unrounded values (u_difference).
// Coordinates follow render/view_transform.hpp exactly:
//   screen: pixels from the top-left corner of the viewport, pixel i spans [i, i + 1);
//   image:  pixels from the top-left corner of the image (row 0 is the first row uploaded);
//   image = (screen - viewport_size / 2) / zoom + center.
// The difference colours are written twice (here and difference_colour() in
// render/difference_view.hpp, with the same colour-map points); tests/ui reads rendered pixels back
// and checks that they agree.

uniform sampler2D u_image_a;
uniform sampler2D u_image_b;
uniform vec2 u_viewport_origin;  // window-space position of the viewport's bottom-left corner
uniform vec2 u_viewport_size;    // in framebuffer pixels
uniform vec2 u_image_size;       // in image pixels
uniform vec2 u_center;           // image point shown at the viewport centre
uniform float u_zoom;            // framebuffer pixels per image pixel
uniform int u_mode;              // 0 = A, 1 = B, 2 = split A|B, 3 = difference
uniform float u_split_x;         // split: screen x of the divider
uniform float u_gain;            // difference: amplification
uniform int u_signed;            // difference: 1 = signed A - B, 0 = |A - B|
uniform int u_false_colour;      // difference: 1 = through the colour map
uniform sampler2D u_difference;  // difference: RGBA32F A - B in 8-bit levels, unrounded
uniform int u_unrounded;         // difference: 1 = from u_difference, 0 = from the 8-bit A and B
uniform float u_difference_sign; // difference: -1 when u_difference holds B - A (blink)
uniform vec3 u_sequential[5];    // the colour maps' points (difference_view.hpp)
uniform vec3 u_diverging[5];
uniform sampler2D u_float_a;     // A, B, split: RGBA32F slot values in 8-bit levels (a float picture's)
uniform sampler2D u_float_b;
uniform int u_float_slots;       // 1 = A and B from u_float_a and u_float_b
// A, B, split: the display transform (render/display_transform.hpp, whose displayed_colour() is
// this in C++; tests/ui compares the two pixel by pixel).
uniform float u_range_low;       // the value shown as 0 before the exposure and the offset
uniform float u_exposure_scale;  // 2^exposure / (range high - range low)
uniform float u_offset;          // added after the exposure (tev's convention)
uniform int u_channel;           // 0 = rgb, 1-4 = r, g, b, a as grey, 5 = luminance
uniform int u_transfer;          // 0 = linear, 1 = sRGB's encoding, 2 = gamma
uniform float u_inverse_gamma;   // 1 / gamma
uniform int u_channel_map;       // 1: the one channel through the sequential colour map
uniform vec2 u_extent_a;         // the picture pixels texture A covers (a pooled result: the even part)
uniform vec2 u_extent_b;
uniform vec3 u_background;
uniform vec3 u_divider_colour;
uniform int u_grid;              // 1: a line between picture pixels (zoomed in far: image_renderer.hpp)

out vec4 out_colour;

vec3 colour_map(float t, bool diverging) {
  float u = diverging ? (clamp(t, -1.0, 1.0) + 1.0) * 0.5 : clamp(t, 0.0, 1.0);
  float position = u * 4.0;
  int i = min(int(position), 3);
  float f = position - float(i);
  return diverging ? mix(u_diverging[i], u_diverging[i + 1], f) : mix(u_sequential[i], u_sequential[i + 1], f);
}

vec3 difference(vec3 levels) {
  vec3 d = levels / 255.0 * u_gain;
  if (u_false_colour == 0) return u_signed == 1 ? 0.5 + 0.5 * clamp(d, -1.0, 1.0) : min(abs(d), vec3(1.0));
  float largest = d.r;
  if (abs(d.g) > abs(largest)) largest = d.g;
  if (abs(d.b) > abs(largest)) largest = d.b;
  return u_signed == 1 ? colour_map(largest, true) : colour_map(abs(largest), false);
}

vec3 srgb_encode(vec3 v) {
  return mix(12.92 * v, 1.055 * pow(v, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), v));
}

vec3 displayed(vec4 c) {
  vec3 v = c.rgb;
  if (u_channel == 1) v = vec3(c.r);
  else if (u_channel == 2) v = vec3(c.g);
  else if (u_channel == 3) v = vec3(c.b);
  else if (u_channel == 4) v = vec3(c.a);
  else if (u_channel == 5) v = vec3(dot(c.rgb, vec3(0.2126, 0.7152, 0.0722)));
  v = (v - u_range_low) * u_exposure_scale + u_offset;
  v = clamp(mix(v, vec3(0.0), isnan(v)), 0.0, 1.0);  // NaN black, infinities at the ends
  if (u_transfer == 1) v = srgb_encode(v);
  else if (u_transfer == 2) v = pow(v, vec3(u_inverse_gamma));
  if (u_channel_map == 1) v = colour_map(v.r, false);
  return v;
}

void main() {
  vec2 window = gl_FragCoord.xy - u_viewport_origin;
  vec2 screen = vec2(window.x, u_viewport_size.y - window.y);
  vec2 image = (screen - 0.5 * u_viewport_size) / u_zoom + u_center;

  if (u_mode == 2 && abs(screen.x - u_split_x) < 1.0) {
    out_colour = vec4(u_divider_colour, 1.0);
    return;
  }
  if (image.x < 0.0 || image.y < 0.0 || image.x >= u_image_size.x || image.y >= u_image_size.y) {
    out_colour = vec4(u_background, 1.0);
    return;
  }
  bool use_b = u_mode == 1 || (u_mode == 2 && screen.x >= u_split_x);
  if ((u_mode != 1 && !use_b && (image.x >= u_extent_a.x || image.y >= u_extent_a.y)) ||
      ((use_b || u_mode == 3) && (image.x >= u_extent_b.x || image.y >= u_extent_b.y))) {
    out_colour = vec4(u_background, 1.0);  // the row or column a pooled result drops
    return;
  }
  // Only the textures this pixel shows are read (a 3840x2160 slot is 33 MiB, and reading both
  // slots' textures for every pixel of A alone doubled the draw's texture traffic). textureLod at
  // level 0: the lookups sit in branches, where implicit derivatives are undefined; the textures
  // have one level, so this is the lookup texture() made.
  if (u_mode != 3) {
    vec4 c;
    if (u_float_slots == 1)
      c = (use_b ? textureLod(u_float_b, image / u_image_size, 0.0) : textureLod(u_float_a, image / u_image_size, 0.0)) /
          255.0;
    else
      c = use_b ? textureLod(u_image_b, image / u_extent_b, 0.0) : textureLod(u_image_a, image / u_extent_a, 0.0);
    out_colour = vec4(displayed(c), 1.0);
  } else {
    // 8-bit textures hold level / 255: back to whole levels first, so that equal differences in
    // two channels stay equal (the largest channel is chosen the same way as in the C++).
    vec3 levels = u_unrounded == 1
                      ? u_difference_sign * textureLod(u_difference, image / u_image_size, 0.0).rgb
                      : floor((textureLod(u_image_a, image / u_extent_a, 0.0).rgb -
                               textureLod(u_image_b, image / u_extent_b, 0.0).rgb) * 255.0 + 0.5);
    out_colour = vec4(difference(levels), 1.0);
  }
  if (u_grid == 1) {
    // The screen pixel whose centre is nearest a pixel edge (left or top of each picture pixel) is
    // the grid line: one screen pixel wide at any zoom, darkened on light pixels and lightened on
    // dark ones so that it shows on both.
    vec2 into = fract(image) * u_zoom;  // screen pixels from the picture pixel's left and top edges
    if (into.x < 1.0 || into.y < 1.0) {
      float light = dot(out_colour.rgb, vec3(0.2126, 0.7152, 0.0722));
      out_colour.rgb = mix(out_colour.rgb, light > 0.5 ? vec3(0.0) : vec3(1.0), 0.35);
    }
  }
}
