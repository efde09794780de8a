// gausslab-sequence: spatio-temporal whitening of an image sequence (folder, video or synthetic).
#include <exception>
#include <iostream>

#include "gausslab/core/cli_args.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/sequence/frame_source.hpp"
#include "program_version.hpp"
#include "sequence_options.hpp"
#include "sequence_run.hpp"

int main(int argc, char** argv) {
  using namespace gausslab;
  if (version_requested(argc, argv)) {
    std::cout << version_text("gausslab-sequence");
    return kSequenceExitDone;
  }
  try {
    const SequenceOptions options = parse_sequence_options(argc, argv);
    if (options.help) {
      std::cout << sequence_usage(method_id_list());
      return kSequenceExitDone;
    }
    return run_sequence(options, std::cerr);
  } catch (const UsageError& error) {
    std::cerr << "gausslab-sequence: " << error.what() << "\n(gausslab-sequence --help shows the usage)\n";
    return kSequenceExitUsage;
  } catch (const SequenceInputError& error) {
    std::cerr << "gausslab-sequence: " << error.what() << "\n";
    return kSequenceExitUsage;
  } catch (const std::exception& error) {
    std::cerr << "gausslab-sequence: " << error.what() << "\n";
    return kSequenceExitFramesFailed;
  }
}
