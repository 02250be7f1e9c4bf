// `irlite compare` as a user runs it: the text and JSON reports and the exit codes (0 no
// divergence, 3 a layer diverges, 1 an error, 2 usage), two models and one model two ways.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "mlp_ir.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

TEST(CliCompare, AModelAgainstItselfAndACopyWithOtherWeights) {
    TempDir dir;
    const std::string a = Mlp().write(dir.file(""), "a"), b = Mlp(true).write(dir.file(""), "b"), x = input_file(dir);
    CliResult r = irlite({"compare", a, a, "-i", "x=" + x});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("no divergence: 6 tensors matched"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("mm1:0"), std::string::npos) << r.out;

    r = irlite({"compare", a, b, "-i", "x=" + x});
    ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
    EXPECT_NE(r.out.find("first divergent layer: 'mm2' (MatMul, tensor 'mm2:0')"), std::string::npos) << r.out;

    r = irlite({"compare", a, b, "--json"});  // inputs filled (random, seed 0)
    ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
    for (const char* part : {"\"a\": ", "\"inputs\": [", "\"source\": \"random fill, seed 0\"", "\"threshold\": 0.999",
                             "\"tensors\": [", "\"layer_a\": \"mm2\"", "\"cosine\": ", "\"max_abs\": ", "\"max_rel\": ",
                             "\"nonfinite_differs\": false", "\"unmatched_a\": []", "\"unmatched_b\": []"})
        EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
    const size_t first = r.out.find("\"first_divergent\": {");
    ASSERT_NE(first, std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"layer_a\": \"mm2\"", first), std::string::npos) << r.out;

    // Fused: the fused node holding mm2.
    r = irlite({"compare", a, b, "--fused", "--json"});
    ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
    EXPECT_NE(r.out.find("\"layer_a\": \"mm2+add2\"", r.out.find("\"first_divergent\"")), std::string::npos) << r.out;
    // A threshold nothing falls below.
    EXPECT_EQ(irlite({"compare", a, b, "--threshold", "-1"}).exit_code, 0);
    // An absolute tolerance above every difference.
    r = irlite({"compare", a, b, "--atol", "1e9"});
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("or max_abs <= 1e+09"), std::string::npos) << r.out;
}

TEST(CliCompare, OneModelTwoWays) {
    TempDir dir;
    const std::string a = Mlp().write(dir.file(""), "a");
    for (const char* vs : {"no-fusion", "threads=2", "isa=sse"}) {
        const CliResult r = irlite({"compare", a, "--vs", vs, "--json"});
        EXPECT_EQ(r.exit_code, 0) << vs << "\n" << r.out << r.err;
        EXPECT_NE(r.out.find(std::string("\"vs\": \"") + vs + "\""), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("\"first_divergent\": null"), std::string::npos) << r.out;
    }
    const CliResult r = irlite({"compare", a, "--vs", "no-fusion"});
    EXPECT_NE(r.out.find("unmatched in B (3): mm1, add1, mm2"), std::string::npos) << r.out;
}

TEST(CliCompare, UsageErrorsExitTwo) {
    TempDir dir;
    const std::string a = Mlp().write(dir.file(""), "a");
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"compare", a}, {"compare", a, a, "--vs", "no-fusion"}, {"compare", a, "--vs", "nope"},
          {"compare", a, a, "--threshold", "2"}, {"compare", a, a, "--atol", "-1"}, {"compare", a, a, "--fill", "pi"}, {"compare", a, a, "-t", "0"}}) {
        const CliResult r = irlite(args);
        EXPECT_EQ(r.exit_code, 2) << args.back() << "\n" << r.err;
    }
    EXPECT_EQ(irlite({"compare", "--help"}).exit_code, 0);
    EXPECT_EQ(irlite({"compare", a, dir.file("missing.xml")}).exit_code, 1);
}

}  // namespace
}  // namespace irlite
