#pragma once
// The api's own sources see gausslab's internal headers and the public header together. Both
// declare their names in namespace gausslab (the public ones in its inline namespace v1), so a name
// declared in both is ambiguous there; the internal ones this code needs are taken here under other
// names first, before the public header is included. Include this before gausslab/gausslab.hpp.
#include "gausslab/core/pixel_format.hpp"

namespace gausslab::internal {
using SampleType = ::gausslab::SampleType;
}  // namespace gausslab::internal
