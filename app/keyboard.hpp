#pragma once
// The viewer's key conventions (cuda-samples style, see STYLE.md), from typed characters so that
// '+' and '_' work on every keyboard layout. Pure functions: tested in tests/ui.
#include <optional>

#include "viewer_state.hpp"

namespace gausslab {

enum class KeyAction {
  SigmaUpSmall,      // '='  +0.1
  SigmaDownSmall,    // '-'  -0.1
  SigmaUpLarge,      // '+'  +1
  SigmaDownLarge,    // '_'  -1
  ToggleContinuous,  // ' '
  SelectMethod,      // '1'..'9': method index = character - '1'
  NextDisplay,       // 'm'
  ToggleSampling,    // 'n'
  Fit,               // 'f'
  OneToOne,          // '0'
};

struct KeyCommand {
  KeyAction action;
  int method_index = -1;  // SelectMethod only
};

std::optional<KeyCommand> command_for_character(unsigned int character);

// sigma + delta, kept inside [kMinSigma, kMaxSigma] and rounded to 1e-9 so steps of 0.1 do not
// accumulate binary noise (2.1 stays 2.1 in file names).
double step_sigma(double sigma, double delta);

// The next display mode in the cycle A → B → split → difference → A.
CompareMode next_display(CompareMode mode);

}  // namespace gausslab
