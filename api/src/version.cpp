#include <string>

#include "program_version.hpp"
#include "internal_names.hpp"
#include "gausslab/gausslab.hpp"

namespace gausslab::v1 {

std::string version() { return build_id(); }

std::string build_report() { return build_report_text(); }

}  // namespace gausslab::v1
