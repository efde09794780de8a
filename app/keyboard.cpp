#include "keyboard.hpp"

#include <algorithm>
#include <cmath>

namespace gausslab {

std::optional<KeyCommand> command_for_character(unsigned int c) {
  switch (c) {
    case '=': return KeyCommand{KeyAction::SigmaUpSmall};
    case '-': return KeyCommand{KeyAction::SigmaDownSmall};
    case '+': return KeyCommand{KeyAction::SigmaUpLarge};
    case '_': return KeyCommand{KeyAction::SigmaDownLarge};
    case ' ': return KeyCommand{KeyAction::ToggleContinuous};
    case 'm': case 'M': return KeyCommand{KeyAction::NextDisplay};
    case 'n': case 'N': return KeyCommand{KeyAction::ToggleSampling};
    case 'f': case 'F': return KeyCommand{KeyAction::Fit};
    case '0': return KeyCommand{KeyAction::OneToOne};
    default: break;
  }
  if (c >= '1' && c <= '9') return KeyCommand{KeyAction::SelectMethod, static_cast<int>(c - '1')};
  return std::nullopt;
}

double step_sigma(double sigma, double delta) {
  const double stepped = std::round((sigma + delta) * 1e9) / 1e9;
  return std::clamp(stepped, kMinSigma, kMaxSigma);
}

CompareMode next_display(CompareMode mode) {
  return static_cast<CompareMode>((static_cast<int>(mode) + 1) % static_cast<int>(CompareMode::Count));
}

}  // namespace gausslab
