#pragma once
// The one median of the project (stage timers, frame times, benchmark samples).
#include <vector>

namespace gausslab {

// The middle value (the mean of the two middle values for an even count); 0 for no values.
double median(std::vector<double> values);

}  // namespace gausslab
