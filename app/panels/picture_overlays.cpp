// What is drawn over the picture itself: each side's name (A, B, split, difference), the difference
// view's legend (the colour map with its range in 8-bit levels), and the inspector (the unrounded
// values under the cursor, and in the pixel grid's cells from kPixelValuesZoom up).
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "gausslab/render/difference_view.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "panels/comparison_panels.hpp"
#include "panels/view_input.hpp"
#include "panels/widgets.hpp"

namespace gausslab {

namespace {

float framebuffer_scale() {
  const ImGuiIO& io = ImGui::GetIO();
  return io.DisplayFramebufferScale.x > 0 ? io.DisplayFramebufferScale.x : 1.0f;
}

}  // namespace

void picture_labels(const Comparison& comparison, const ViewState& view, const PictureArea& area) {
  if (area.width <= 0) return;
  const float scale = framebuffer_scale();
  const FilterState& applied = comparison.settings().applied();
  const MethodChoices& choices = comparison.settings().choices();
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const bool swapped = view.blink_swapped;
  const int methods[2] = {swapped ? applied.method_b : applied.method_a, swapped ? applied.method_a : applied.method_b};
  const char* names[2] = {swapped ? "B" : "A", swapped ? "A" : "B"};
  const auto label = [&](float x, float y, const std::string& text, bool right) {
    const ImVec2 size = ImGui::CalcTextSize(text.c_str());
    const float pad = scaled(6.0f);  // HiDPI: the label's margin grows with its text
    const float left = right ? x - size.x - 2 * pad : x;
    draw->AddRectFilled(ImVec2(left, y), ImVec2(left + size.x + 2 * pad, y + size.y + pad), IM_COL32(0, 0, 0, 170), 4.0f);
    draw->AddText(ImVec2(left + pad, y + pad / 2), IM_COL32(255, 235, 120, 255), text.c_str());
  };
  // At the picture's bottom edge (HiDPI: the offsets grow with the text).
  const float top = (area.y + area.height) / scale - 34.0f * ui_scale();
  const float width = area.width / scale;
  switch (view.mode) {
    case CompareMode::A:
    case CompareMode::B: {
      const int shown = view.mode == CompareMode::A ? 0 : 1;
      label(width * 0.5f - 60.0f, top, std::string(names[shown]) + ": " + choices.label(methods[shown]), false);
      break;
    }
    case CompareMode::Split: {
      const float divider = static_cast<float>(view.split_fraction) * width;
      label(divider - 8.0f, top, std::string(names[0]) + ": " + choices.label(methods[0]), true);
      label(divider + 8.0f, top, std::string(names[1]) + ": " + choices.label(methods[1]), false);
      break;
    }
    case CompareMode::Difference:
      label(width * 0.5f - 100.0f, top,
            std::string(view.signed_difference ? "" : "|") + names[0] + " - " + names[1] + (view.signed_difference ? "" : "|") +
                ": " + choices.id(methods[0]) + " - " + choices.id(methods[1]) + "  x" + figure(view.gain, "%.0f"),
            false);
      break;
    default: break;
  }
}

void difference_legend(const ViewState& view, const PictureArea& area) {
  if (view.mode != CompareMode::Difference || area.width <= 0) return;
  const float scale = framebuffer_scale();
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const float u = ui_scale();  // HiDPI: the legend grows with the text
  const float bar_width = std::min(260.0f * u, area.width / scale - 40.0f * u), bar_height = 14.0f * u;
  const ImVec2 origin(16.0f * u, (area.y + area.height) / scale - 58.0f * u);
  draw->AddRectFilled(ImVec2(origin.x - 8 * u, origin.y - 22 * u), ImVec2(origin.x + bar_width + 8 * u, origin.y + bar_height + 24 * u),
                      IM_COL32(0, 0, 0, 180), 4.0f);
  // The bar: the same mapping as difference_colour() (and the shader), from no difference at the
  // left (or the middle, signed) to 255 / gain levels and beyond at the right.
  const int steps = 96;
  const double full = 255.0 / view.gain;  // the difference, in levels, that reaches the end of the map
  for (int i = 0; i < steps; ++i) {
    const double t = (i + 0.5) / steps;
    const double x = view.signed_difference ? 2 * t - 1 : t;  // difference * gain / 255
    std::array<float, 3> c{};
    if (view.false_colour) {
      c = colour_map(x, view.signed_difference);
    } else {
      const float grey = static_cast<float>(view.signed_difference ? 0.5 + 0.5 * x : x);
      c = {grey, grey, grey};
    }
    const float x0 = origin.x + bar_width * i / steps, x1 = origin.x + bar_width * (i + 1) / steps;
    draw->AddRectFilled(ImVec2(x0, origin.y), ImVec2(x1 + 0.5f, origin.y + bar_height),
                        IM_COL32(static_cast<int>(c[0] * 255 + 0.5f), static_cast<int>(c[1] * 255 + 0.5f),
                                 static_cast<int>(c[2] * 255 + 0.5f), 255));
  }
  const ImU32 text = IM_COL32(235, 235, 235, 255);
  draw->AddText(ImVec2(origin.x, origin.y - 19 * u),
                text, (std::string(view.signed_difference ? "A - B" : "|A - B|") + " in 8-bit levels, gain x" +
                       figure(view.gain, "%.0f") + (view.false_colour ? " (largest channel)" : " (per channel)")).c_str());
  const std::string low = view.signed_difference ? "-" + figure(full, "%.3g") : "0";
  const std::string high = (view.signed_difference ? "+" : "") + figure(full, "%.3g") + " or more";
  draw->AddText(ImVec2(origin.x, origin.y + bar_height + 3), text, low.c_str());
  if (view.signed_difference)
    draw->AddText(ImVec2(origin.x + bar_width * 0.5f - 4, origin.y + bar_height + 3), text, "0");
  draw->AddText(ImVec2(origin.x + bar_width - ImGui::CalcTextSize(high.c_str()).x, origin.y + bar_height + 3), text, high.c_str());
}

void display_map_legend(const ViewState& view, const DisplayRange& range, bool own_units, const PictureArea& area) {
  if (view.mode == CompareMode::Difference || !view.display.maps_colour() || area.width <= 0) return;
  const float scale = framebuffer_scale();
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const float u = ui_scale();
  const float bar_width = std::min(260.0f * u, area.width / scale - 40.0f * u), bar_height = 14.0f * u;
  const ImVec2 origin(16.0f * u, (area.y + area.height) / scale - 58.0f * u);
  draw->AddRectFilled(ImVec2(origin.x - 8 * u, origin.y - 22 * u), ImVec2(origin.x + bar_width + 8 * u, origin.y + bar_height + 24 * u),
                      IM_COL32(0, 0, 0, 180), 4.0f);
  const int steps = 96;
  for (int i = 0; i < steps; ++i) {
    const std::array<float, 3> c = colour_map((i + 0.5) / steps, false);  // the shader's map of the grey
    const float x0 = origin.x + bar_width * i / steps, x1 = origin.x + bar_width * (i + 1) / steps;
    draw->AddRectFilled(ImVec2(x0, origin.y), ImVec2(x1 + 0.5f, origin.y + bar_height),
                        IM_COL32(static_cast<int>(c[0] * 255 + 0.5f), static_cast<int>(c[1] * 255 + 0.5f),
                                 static_cast<int>(c[2] * 255 + 0.5f), 255));
  }
  // The ends in the picture's display units (an 8-bit level is 1/255; a wider picture's own units).
  const ImU32 text = IM_COL32(235, 235, 235, 255);
  draw->AddText(ImVec2(origin.x, origin.y - 19 * u), text,
                (std::string(to_string(view.display.channel)) + " through the colour map" +
                 (own_units ? " (the picture's own units)" : " (1 = 255 levels)")).c_str());
  const std::string low = figure(value_shown_at(0.0, view.display, range), "%.4g") + " or less";
  const std::string high = figure(value_shown_at(1.0, view.display, range), "%.4g") + " or more";
  draw->AddText(ImVec2(origin.x, origin.y + bar_height + 3), text, low.c_str());
  draw->AddText(ImVec2(origin.x + bar_width - ImGui::CalcTextSize(high.c_str()).x, origin.y + bar_height + 3), text, high.c_str());
}

void inspector(const Comparison& comparison, const ViewState& view, const PictureArea& area) {
  if (!view.inspector || area.width <= 0) return;
  const ImGuiIO& io = ImGui::GetIO();
  const float scale = framebuffer_scale();
  const std::optional<ComparisonNumbers> numbers = current_numbers(comparison);
  const SlotValues* values[2] = {numbers && numbers->values_a ? numbers->values_a.get() : nullptr,
                                 numbers && numbers->values_b ? numbers->values_b.get() : nullptr};
  const int first = view.blink_swapped ? 1 : 0;
  const int w = comparison.runs().pipeline().width(), h = comparison.runs().pipeline().height();
  // The values in the pixel grid's cells from kPixelValuesZoom up (as tev): the shown slot's (each
  // split side's; the difference's A - B), one line per channel in its colour, in the picture's own
  // units (a 16-bit file's 0..65535, a float file's 0..1; else 8-bit levels), the font as large as
  // three lines fit in a cell (up to the panels' size).
  const double zoom = view.transform.zoom;
  if (zoom >= kPixelValuesZoom && view.pixel_grid && comparison.settings().applied().pool == PoolMode::None) {
    ImDrawList* draw = ImGui::GetBackgroundDrawList();
    ImFont* font = ImGui::GetFont();
    const float cell = static_cast<float>(zoom / scale);
    const float size = std::min(ImGui::GetFontSize(), cell / 3.4f);
    const PictureLevels* levels = comparison.picture().processed_levels.get();
    const double units = levels ? levels->units_per_level : 1.0;
    const Vec2 top_left = screen_to_image(view.transform, {0, 0}, area.width, area.height);
    const Vec2 bottom_right = screen_to_image(view.transform, {static_cast<double>(area.width), static_cast<double>(area.height)},
                                              area.width, area.height);
    const int x0 = std::max(0, static_cast<int>(std::floor(top_left.x))), y0 = std::max(0, static_cast<int>(std::floor(top_left.y)));
    const int x1 = std::min(w - 1, static_cast<int>(bottom_right.x)), y1 = std::min(h - 1, static_cast<int>(bottom_right.y));
    const double split_x = view.split_fraction * area.width;
    static const ImU32 kChannelColours[3] = {IM_COL32(255, 150, 150, 255), IM_COL32(150, 255, 150, 255),
                                             IM_COL32(160, 190, 255, 255)};
    // As many decimals as fit the cell: 8-bit levels with two ("127.63"), a 16-bit file's values
    // with one or none ("32896.5"), a float file's with four significant digits ("0.5004").
    const auto text_of = [&](double value, bool with_sign) {
      const double own = value * units;
      const bool large = units == 1.0 || std::abs(own) >= 100.0;
      const char* formats[3] = {large ? (units == 1.0 ? "%.2f" : "%.1f") : "%.4g", large ? (units == 1.0 ? "%.1f" : "%.0f") : "%.3g",
                                large ? "%.0f" : "%.2g"};
      char text[40];
      for (const char* format : formats) {
        char number[32];
        std::snprintf(number, sizeof number, format, own);
        std::snprintf(text, sizeof text, "%s%s", with_sign && own >= 0 ? "+" : "", number);
        if (font->CalcTextSizeA(size, 1e9f, 0.0f, text).x <= cell * 0.94f) break;
      }
      return std::string(text);
    };
    draw->PushClipRect(ImVec2(area.x / scale, area.y / scale), ImVec2((area.x + area.width) / scale, (area.y + area.height) / scale), true);
    for (int y = y0; y <= y1 && (y1 - y0) < 200; ++y)
      for (int x = x0; x <= x1 && (x1 - x0) < 200; ++x) {
        const Vec2 centre = image_to_screen(view.transform, {x + 0.5, y + 0.5}, area.width, area.height);
        if (centre.x < -cell * scale || centre.y < -cell * scale || centre.x >= area.width + cell * scale ||
            centre.y >= area.height + cell * scale)
          continue;  // a cell partly in view shows the part of its values that is
        int shown = view.mode == CompareMode::B ? 1 : 0;
        if (view.mode == CompareMode::Split && centre.x >= split_x) shown = 1;
        const SlotValues* va = values[shown == 0 ? first : 1 - first];
        const bool difference = view.mode == CompareMode::Difference;
        if (difference ? !values[first] || !values[1 - first] : !va) continue;
        for (int c = 0; c < 3; ++c) {
          const double value = difference ? values[first]->value(x, y, c) - values[1 - first]->value(x, y, c) : va->value(x, y, c);
          const std::string text = text_of(value, difference);
          const ImVec2 extent = font->CalcTextSizeA(size, 1e9f, 0.0f, text.c_str());
          const ImVec2 at(static_cast<float>((area.x + centre.x) / scale) - extent.x * 0.5f,
                          static_cast<float>((area.y + centre.y) / scale) + (c - 1.5f) * size);
          draw->AddText(font, size, ImVec2(at.x + 1, at.y + 1), IM_COL32(0, 0, 0, 230), text.c_str());
          draw->AddText(font, size, at, kChannelColours[c], text.c_str());
        }
      }
    draw->PopClipRect();
  }
  // Under the cursor.
  if (io.WantCaptureMouse) return;
  const Vec2 mouse = mouse_in_picture(area);
  if (mouse.x < 0 || mouse.y < 0 || mouse.x >= area.width || mouse.y >= area.height) return;
  const Vec2 p = screen_to_image(view.transform, mouse, area.width, area.height);
  const int x = static_cast<int>(std::floor(p.x)), y = static_cast<int>(std::floor(p.y));
  if (x < 0 || y < 0 || x >= w || y >= h) return;
  ImGui::BeginTooltip();
  ImGui::Text("x %d  y %d", x, y);
  const char* names[2] = {"A", "B"};
  const auto row = [](const char* name, const std::array<double, 4>& v, bool with_sign) {
    ImGui::Text("%-3s %9s %9s %9s %9s", name, levels_text(v[0], with_sign).c_str(), levels_text(v[1], with_sign).c_str(),
                levels_text(v[2], with_sign).c_str(), levels_text(v[3], with_sign).c_str());
  };
  const auto at = [&](const SlotValues& s) {
    return std::array<double, 4>{s.value(x, y, 0), s.value(x, y, 1), s.value(x, y, 2), s.value(x, y, 3)};
  };
  for (int i = 0; i < 2; ++i) {
    if (values[i])
      row(names[i], at(*values[i]), false);
    else
      ImGui::TextColored(kDimColour, "%s  (values on their way)", names[i]);
  }
  if (values[0] && values[1]) {
    const std::array<double, 4> a = at(*values[0]), b = at(*values[1]);
    row("A-B", {a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3]}, true);
  }
  ImGui::TextColored(kDimColour, "unrounded, in 8-bit levels (r g b a)");
  ImGui::EndTooltip();
}

}  // namespace gausslab
