// Model::reshape on an IR document: rewrites the named Parameters' `shape` attribute and output
// dims. Model::reshape works on a copy with it; irlite::check (`irlite check --shape`) on the
// document it is about to check.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/ir_document.hpp"
#include "irlite/shape.hpp"

namespace irlite {

void reshape_parameters(IrDocument& doc, const std::vector<std::pair<std::string, PartialShape>>& shapes);

}  // namespace irlite
