// Placeholder until 'irlite check' lands.
#include "tools/cli.hpp"

namespace irlite::cli {
int check_command(const std::vector<std::string>&) { throw UsageError("'check' is not implemented yet"); }
}  // namespace irlite::cli
