// The op table: no duplicates, sane definitions, and every op has a unit test that names it.
#include <gtest/gtest.h>

#include <dirent.h>

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/op.hpp"
#include "kernels/all_ops.hpp"

namespace irlite {
namespace {

std::string read_test_sources() {
    std::string all;
    for (const std::string& dir : {std::string(IRLITE_SOURCE_DIR) + "/tests", std::string(IRLITE_SOURCE_DIR) + "/tests/ops"}) {
        DIR* d = opendir(dir.c_str());
        if (!d) continue;
        while (dirent* e = readdir(d)) {
            const std::string name = e->d_name;
            if (name.size() < 4 || name.substr(name.size() - 4) != ".cpp" || name == "op_table_test.cpp") continue;
            std::ifstream f(dir + "/" + name);
            std::stringstream ss;
            ss << f.rdbuf();
            all += ss.str();
        }
        closedir(d);
    }
    return all;
}

TEST(OpTable, DefinitionsAreComplete) {
    for (const OpDef& d : builtin_ops().all()) {
        SCOPED_TRACE(d.type);
        EXPECT_TRUE(d.infer) << "no shape rule";
        EXPECT_TRUE(d.compute) << "no kernel";
        EXPECT_LE(d.min_inputs, d.max_inputs());
        EXPECT_LE(d.first_opset, d.last_opset);
        EXPECT_GE(d.first_opset, 1);
        if (!d.variadic_inputs) {
            EXPECT_LT(d.value_inputs >> d.input_roles.size(), 1u) << "value_inputs names a port the op does not have";
        }
    }
}

// The op contract (issue 25): an op prepares once (validates, plans, sizes its scratch) and its
// compute only computes. The ops below have no prepare yet; each one that gains it leaves the list,
// and an op added without prepare fails here.
TEST(OpTable, EveryOpPrepares) {
    static const std::set<std::string> kWithoutPrepareForNow = {
        // the graph's own ops: values bound by the executor, states
        "Assign", "Const", "Parameter", "ReadValue", "Result"};
    std::set<std::string> missing;
    for (const OpDef& d : builtin_ops().all())
        if (!d.prepare) missing.insert(d.type);
    for (const std::string& type : missing)
        EXPECT_TRUE(kWithoutPrepareForNow.count(type)) << type << " has no prepare (engine/op.hpp: OpDef::prepare)";
    for (const std::string& type : kWithoutPrepareForNow)
        EXPECT_TRUE(missing.count(type)) << type << " prepares now: take it off kWithoutPrepareForNow";
}

TEST(OpTable, RejectsOverlappingDefinitions) {
    OpRegistry r;
    OpDef a;
    a.type = "Foo";
    a.first_opset = 1;
    a.last_opset = 7;
    r.add(a);
    OpDef b = a;
    b.type = "FOO";
    b.first_opset = 7;
    b.last_opset = kLatestOpset;
    EXPECT_THROW(r.add(b), Error);
    b.first_opset = 8;
    EXPECT_NO_THROW(r.add(b));
    EXPECT_EQ(r.find("foo", 3)->last_opset, 7);
    EXPECT_EQ(r.find("Foo", 9)->first_opset, 8);
    EXPECT_EQ(r.find("Foo", 99), nullptr);
}

// An op whose output sizes depend on values makes its outputs (KernelContext::dynamic_output):
// the executor must not allocate them from the inferred shapes.
TEST(OpTable, DataDependentOutputsAreMadeByTheKernel) {
    OpRegistry r;
    OpDef d;
    d.type = "Foo";
    d.data_dependent_outputs = true;
    EXPECT_THROW(r.add(d), Error);
    d.allocates_outputs = true;
    EXPECT_NO_THROW(r.add(d));
    for (const char* type : {"NonZero", "NonMaxSuppression", "TensorIterator", "Loop", "If"}) {
        const OpDef* def = builtin_ops().find(type, kLatestOpset);
        ASSERT_NE(def, nullptr) << type;
        EXPECT_TRUE(def->data_dependent_outputs && def->prepare) << type;
    }
}

TEST(OpTable, LooksUpAliases) {
    const OpRegistry& r = builtin_ops();
    EXPECT_NE(r.find("Const", 1), nullptr);
    EXPECT_EQ(r.find("Constant", 1), r.find("Const", 1));
    EXPECT_EQ(parse_opset("opset8"), 8);
    EXPECT_EQ(parse_opset("experimental"), std::nullopt);
    EXPECT_EQ(parse_opset("opset"), std::nullopt);
}

TEST(OpTable, EveryOpHasAUnitTest) {
    const std::string sources = read_test_sources();
    for (const OpDef& d : builtin_ops().all()) {
        const std::string quoted = "\"" + d.type + "\"";
        EXPECT_NE(sources.find(quoted), std::string::npos)
            << d.type << "-" << d.version << " has no unit test (no test source mentions " << quoted << ")";
    }
}

// The README's "Supported ops" section names every op type and says how many op versions there are.
TEST(OpTable, EveryOpIsListedInTheReadme) {
    std::ifstream f(std::string(IRLITE_SOURCE_DIR) + "/README.md");
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string readme = ss.str();
    const size_t begin = readme.find("## Supported ops");
    ASSERT_NE(begin, std::string::npos) << "README.md has no 'Supported ops' section";
    const std::string section = readme.substr(begin, readme.find("\n## ", begin + 1) - begin);
    const auto is_name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
    for (const OpDef& d : builtin_ops().all()) {
        bool found = false;
        for (size_t at = section.find(d.type); at != std::string::npos && !found; at = section.find(d.type, at + 1))
            found = (at == 0 || !is_name_char(section[at - 1])) &&
                    (at + d.type.size() == section.size() || !is_name_char(section[at + d.type.size()]));
        EXPECT_TRUE(found) << d.type << "-" << d.version << " is missing from the README's Supported ops section";
    }
    const std::string count = std::to_string(builtin_ops().all().size()) + " op versions";
    EXPECT_NE(section.find(count), std::string::npos) << "the section should say '" << count << "'";
}

}  // namespace
}  // namespace irlite
