// irlite::check, the library call behind `irlite check`: every finding with file, line, layer and
// port; a clean model is valid; --shape's unknown name is an error; a missing file is a finding.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "irlite/irlite.hpp"

namespace irlite {
namespace {

const std::string kSource = IRLITE_SOURCE_DIR;

const Diagnostic* find(const CheckResult& r, const std::string& code) {
    const auto it = std::find_if(r.findings.begin(), r.findings.end(), [&](const Diagnostic& d) { return d.code == code; });
    return it == r.findings.end() ? nullptr : &*it;
}

TEST(CheckApi, EveryFindingWithItsPlace) {
    const CheckResult r = check(kSource + "/tests/data/check/many_faults.xml");
    EXPECT_FALSE(r.valid());
    EXPECT_EQ(r.errors, 6u);  // the Result's [3,5] on gather's [3,2] output is a warning
    EXPECT_EQ(r.warnings, 4u);
    const Diagnostic* dims = find(r, "dims-mismatch");
    ASSERT_NE(dims, nullptr);
    EXPECT_EQ(dims->severity, Severity::Error);
    EXPECT_EQ(dims->where.line, 64);
    EXPECT_EQ(dims->where.layer_name, "gather");
    EXPECT_EQ(dims->where.port, 2);  // the port's id in the XML
    EXPECT_EQ(dims->declared, "[3,5]");
    EXPECT_TRUE(std::is_sorted(r.findings.begin(), r.findings.end(),
                               [](const Diagnostic& a, const Diagnostic& b) { return a.where.line < b.where.line; }));
}

TEST(CheckApi, CleanModelAndOptions) {
    const std::string demo = kSource + "/models/demo/model.xml";
    EXPECT_TRUE(check(demo).valid());
    CheckOptions shaped;
    shaped.shapes = {{"x", PartialShape({5, 6})}};
    EXPECT_NE(find(check(demo, shaped), "dims-mismatch"), nullptr);  // declared dims downstream checked
    CheckOptions unknown;
    unknown.shapes = {{"nope", PartialShape({5, 6})}};
    EXPECT_THROW(check(demo, unknown), Error);
    CheckOptions no_weights;
    no_weights.no_weights = true;
    EXPECT_TRUE(check(demo, no_weights).valid());
    const CheckResult missing = check(kSource + "/no/such/model.xml");
    EXPECT_FALSE(missing.valid());
    ASSERT_EQ(missing.findings.size(), 1u);
    EXPECT_EQ(missing.findings[0].code, "xml-unreadable");
}

}  // namespace
}  // namespace irlite
