#version 330 core
// Draws the result image(s) with zoom and pan, and the comparison views: A, B, a split A|B with a
// divider, or |A - B| x gain. Coordinates follow render/view_transform.hpp exactly:
//   screen: pixels from the top-left corner of the viewport, pixel i spans [i, i + 1);
//   image:  pixels from the top-left corner of the image (row 0 is the first row uploaded);
//   image = (screen - viewport_size / 2) / zoom + center.
// The difference formula is written twice (here and difference_level() in view_transform.hpp);
// tests/ui reads a rendered pixel back and checks that they agree.

uniform sampler2D u_image_a;
uniform sampler2D u_image_b;
uniform vec2 u_viewport_origin;  // window-space position of the viewport's bottom-left corner
uniform vec2 u_viewport_size;    // in framebuffer pixels
uniform vec2 u_image_size;       // in image pixels
uniform vec2 u_center;           // image point shown at the viewport centre
uniform float u_zoom;            // framebuffer pixels per image pixel
uniform int u_mode;              // 0 = A, 1 = B, 2 = split A|B, 3 = |A - B| x gain
uniform float u_split_x;         // split: screen x of the divider
uniform float u_gain;            // difference: amplification
uniform vec3 u_background;
uniform vec3 u_divider_colour;

out vec4 out_colour;

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
  vec2 uv = image / u_image_size;
  vec4 a = texture(u_image_a, uv);
  if (u_mode == 0) {
    out_colour = vec4(a.rgb, 1.0);
  } else if (u_mode == 1) {
    out_colour = vec4(texture(u_image_b, uv).rgb, 1.0);
  } else if (u_mode == 2) {
    out_colour = vec4(screen.x < u_split_x ? a.rgb : texture(u_image_b, uv).rgb, 1.0);
  } else {
    vec3 b = texture(u_image_b, uv).rgb;
    out_colour = vec4(min(abs(a.rgb - b) * u_gain, vec3(1.0)), 1.0);
  }
}
