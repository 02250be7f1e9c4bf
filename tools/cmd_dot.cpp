// Placeholder until 'irlite dot' lands.
#include "tools/cli.hpp"

namespace irlite::cli {
int dot_command(const std::vector<std::string>&) { throw UsageError("'dot' is not implemented yet"); }
}  // namespace irlite::cli
