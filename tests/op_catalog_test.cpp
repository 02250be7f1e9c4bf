// The op table agrees with OpenVINO's opset catalog: every op version irlite registers runs in
// exactly the opsets OpenVINO's opset lists give it, and the registry refuses a definition that
// claims an opset the catalog does not give it.
#include <gtest/gtest.h>

#include "engine/op.hpp"
#include "engine/opset_catalog.hpp"
#include "kernels/all_ops.hpp"

namespace irlite {
namespace {

TEST(OpCatalog, EveryRegisteredVersionIsInTheCatalogForEachOfItsOpsets) {
    for (const OpDef& d : builtin_ops().all()) {
        for (int opset = d.first_opset; opset <= d.last_opset; ++opset) {
            if (find_opset_deviation(d.type, d.version, opset)) continue;  // listed, warned about
            const OpsetCatalogEntry* e = find_catalog_entry(d.type, opset);
            ASSERT_NE(e, nullptr) << d.type << "-" << d.version << " claims opset" << opset
                                  << ", which has no " << d.type;
            EXPECT_EQ(e->version, d.version) << d.type << "-" << d.version << " claims opset" << opset << ", where "
                                             << d.type << " is version " << e->version;
        }
        // And it runs in every opset the catalog gives it (no opset left without a definition; a
        // version with two runs of opsets has a definition per run).
        for (const OpsetCatalogEntry* e : catalog_entries(d.type)) {
            if (e->version != d.version) continue;
            bool covered = false;
            for (const OpDef* other : builtin_ops().find_all(d.type))
                covered = covered || (other->version == d.version && other->first_opset <= e->first_opset &&
                                      other->last_opset >= e->last_opset);
            EXPECT_TRUE(covered) << d.type << "-" << d.version << " in opset" << e->first_opset << "..opset" << e->last_opset;
        }
    }
}

TEST(OpCatalog, NamesOpenVinoGivesTheBoundaryOps) {
    // OpenVINO's opset tables call them Parameter-1, Constant-1, Result-1 and Tile-1.
    for (const char* type : {"Parameter", "Const", "Constant", "Result", "Tile"}) {
        const OpDef* d = builtin_ops().find(type, 1);
        ASSERT_NE(d, nullptr) << type;
        EXPECT_EQ(d->version, 1) << type;
    }
    // MVN-1 entered in opset2; Squeeze-1 left after opset14.
    EXPECT_EQ(builtin_ops().find("MVN", 1), nullptr);
    EXPECT_EQ(builtin_ops().find("MVN", 2)->version, 1);
    EXPECT_EQ(builtin_ops().find("Squeeze", 15)->version, 15);
}

OpDef fake(const char* type, int version, int first, int last) {
    OpDef d;
    d.type = type;
    d.version = version;
    d.first_opset = first;
    d.last_opset = last;
    return d;
}

TEST(OpCatalog, RegistryRejectsAClaimTheCatalogDoesNotMake) {
    OpRegistry r;
    // Squeeze-1 claiming opset15 and opset16, where OpenVINO has Squeeze-15.
    try {
        r.add(fake("Squeeze", 1, 1, kLatestOpset - 1));
        FAIL() << "Squeeze-1 in opset1..opset15 was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), "op-not-in-catalog");
        EXPECT_NE(std::string(e.what()).find("opset1..opset14"), std::string::npos) << e.what();
    }
    // MVN-1 claiming opset1.
    EXPECT_THROW(r.add(fake("MVN", 1, 1, 5)), Error);
    // A version OpenVINO never had.
    EXPECT_THROW(r.add(fake("Squeeze", 7, 7, 7)), Error);
    // Without a stated range the catalog's is taken.
    r.add(fake("Squeeze", 1, 1, kLatestOpset));
    EXPECT_EQ(r.find("Squeeze", 14)->last_opset, 14);
    EXPECT_EQ(r.find("Squeeze", 15), nullptr);
    r.add(fake("Tile", 1, 1, kLatestOpset));
    EXPECT_EQ(r.find("Tile", 16)->version, 1);
}

}  // namespace
}  // namespace irlite
