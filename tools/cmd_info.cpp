// Placeholder until 'irlite info' lands.
#include "tools/cli.hpp"

namespace irlite::cli {
int info_command(const std::vector<std::string>&) { throw UsageError("'info' is not implemented yet"); }
}  // namespace irlite::cli
