#version 330 core
// The common frame's picture: slot A, B or the split A|B of the 8-bit results, whole (not pooled), under the
// identity display transform (rgb, no exposure, offset or range, linear), no pixel grid. What
// image_view.frag draws then, bit for bit (its transform is then exact: (v - 0) * 1 + 0, clamped to
// [0, 1] where v already is), in a fraction of its instructions: on the H200 fragments run on the
// few graphics-capable SMs only, and the full shader's work showed in the frame (image_renderer.cpp).
// The coordinates are image_view.frag's (render/view_transform.hpp).

uniform sampler2D u_image;        // the slot shown (split: A)
uniform sampler2D u_image_b;      // split: B, right of the divider
uniform int u_split;              // 1: the split view
uniform float u_split_x;          // split: screen x of the divider
uniform vec3 u_divider_colour;
uniform vec2 u_viewport_origin;   // window-space position of the viewport's bottom-left corner
uniform vec2 u_viewport_size;     // in framebuffer pixels
uniform vec2 u_image_size;        // in image pixels
uniform vec2 u_center;            // image point shown at the viewport centre
uniform float u_zoom;             // framebuffer pixels per image pixel
uniform vec3 u_background;

out vec4 out_colour;

void main() {
  vec2 window = gl_FragCoord.xy - u_viewport_origin;
  vec2 screen = vec2(window.x, u_viewport_size.y - window.y);
  vec2 image = (screen - 0.5 * u_viewport_size) / u_zoom + u_center;
  if (u_split == 1 && abs(screen.x - u_split_x) < 1.0) {
    out_colour = vec4(u_divider_colour, 1.0);
    return;
  }
  if (image.x < 0.0 || image.y < 0.0 || image.x >= u_image_size.x || image.y >= u_image_size.y) {
    out_colour = vec4(u_background, 1.0);
    return;
  }
  vec2 at = image / u_image_size;
  out_colour = vec4((u_split == 1 && screen.x >= u_split_x ? textureLod(u_image_b, at, 0.0) : textureLod(u_image, at, 0.0)).rgb, 1.0);
}
