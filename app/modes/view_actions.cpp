#include "modes/view_actions.hpp"

#include <algorithm>

#include "actions/keyboard.hpp"

namespace gausslab {

bool perform_view_action(ActionId action, ViewState& view, GainRange gain, int image_width, int image_height,
                         int area_width, int area_height) {
  switch (action) {
    case ActionId::NextView: view.mode = next_display(view.mode); return true;
    case ActionId::ViewA: view.mode = CompareMode::A; return true;
    case ActionId::ViewB: view.mode = CompareMode::B; return true;
    case ActionId::ViewSplit: view.mode = CompareMode::Split; return true;
    case ActionId::ViewDifference: view.mode = CompareMode::Difference; return true;
    case ActionId::GainUp: view.gain = std::min(view.gain * 2, gain.high); return true;
    case ActionId::GainDown: view.gain = std::max(view.gain / 2, gain.low); return true;
    case ActionId::ExposureUp: view.display.exposure_stops = std::min(view.display.exposure_stops + 0.5, kMaxExposureStops); return true;
    case ActionId::ExposureDown: view.display.exposure_stops = std::max(view.display.exposure_stops - 0.5, -kMaxExposureStops); return true;
    case ActionId::OffsetUp: view.display.offset = step_offset(view.display.offset, 0.05); return true;
    case ActionId::OffsetDown: view.display.offset = step_offset(view.display.offset, -0.05); return true;
    case ActionId::NextChannel:
      view.display.channel = static_cast<ChannelView>((static_cast<int>(view.display.channel) + 1) % static_cast<int>(ChannelView::Count));
      return true;
    case ActionId::ToggleChannelMap: view.display.colour_map = !view.display.colour_map; return true;
    case ActionId::NextTransfer:
      view.display.transfer = static_cast<Transfer>((static_cast<int>(view.display.transfer) + 1) % static_cast<int>(Transfer::Count));
      return true;
    case ActionId::NextRange:
      view.display.range = static_cast<RangeMode>((static_cast<int>(view.display.range) + 1) % static_cast<int>(RangeMode::Count));
      return true;
    case ActionId::ResetDisplay: {
      const DisplayTransform chosen = view.display;  // the percentiles and gamma typed stay for the next time
      view.display = DisplayTransform{};
      view.display.gamma = chosen.gamma;
      view.display.low_percentile = chosen.low_percentile;
      view.display.high_percentile = chosen.high_percentile;
      return true;
    }
    case ActionId::ToggleSampling:  // auto, nearest, linear, auto
      view.sampling = view.sampling == Sampling::Auto      ? Sampling::Nearest
                      : view.sampling == Sampling::Nearest ? Sampling::Linear
                                                           : Sampling::Auto;
      return true;
    case ActionId::TogglePixelGrid: view.pixel_grid = !view.pixel_grid; return true;
    case ActionId::ZoomIn:
    case ActionId::ZoomOut: {
      const double zoom = zoom_step(view.transform.zoom, action == ActionId::ZoomIn ? 1 : -1);
      view.transform = zoom_around(view.transform, zoom / view.transform.zoom, {0.5 * area_width, 0.5 * area_height},
                                   area_width, area_height);
      view.transform.zoom = zoom;  // exactly the step, not the step times a rounding
      view.fit = false;
      return true;
    }
    case ActionId::Fit: view.fit = true; return true;
    case ActionId::OneToOne:
      view.fit = false;
      view.transform = one_to_one_view(image_width, image_height, area_width, area_height);
      return true;
    default: return false;
  }
}

}  // namespace gausslab
