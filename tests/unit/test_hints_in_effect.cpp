// hints_not_in_effect (core/hints_in_effect.hpp): which of the hints a run
// asked for the file's hints in effect report otherwise.  What the manifest's
// mpiio_hints_not_in_effect and the --hint warning rest on.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/hints_in_effect.hpp"

namespace {

using nlohmann::json;

TEST(HintsInEffect, AHintReportedWithAnotherValueIsNotInEffect) {
    const json asked = {{"cb_nodes", "2"}, {"cb_buffer_size", "262144"}, {"romio_cb_write", "enable"}};
    const json have = {{"cb_nodes", "1"}, {"cb_buffer_size", "262144"}, {"romio_cb_write", "automatic"}};
    const json lost = iok::hints_not_in_effect(asked, have);
    EXPECT_EQ(lost, json({{"cb_nodes", {{"requested", "2"}, {"in_effect", "1"}}},
                          {"romio_cb_write", {{"requested", "enable"}, {"in_effect", "automatic"}}}}));
    EXPECT_EQ(iok::describe_hints_not_in_effect(lost),
              "cb_nodes=2 (in effect: 1), romio_cb_write=enable (in effect: automatic)");
}

TEST(HintsInEffect, KeysTheLayerDoesNotReportAndPnetcdfsOwnAreNotJudged) {
    // OMPIO reports no romio_* key; PnetCDF reads nc_var_align_size=1 back as 4 (the same layout).
    const json asked = {{"romio_cb_write", "disable"}, {"nc_var_align_size", "1"}, {"striping_factor", "4"}};
    const json have = {{"cb_nodes", "1"}, {"nc_var_align_size", "4"}};
    EXPECT_TRUE(iok::hints_not_in_effect(asked, have).empty());
    EXPECT_TRUE(iok::hints_not_in_effect(asked, json::object()).empty());  // no file: nothing to judge
    EXPECT_EQ(iok::describe_hints_not_in_effect(json::object()), "");
}

TEST(HintsInEffect, AllInEffectIsEmpty) {
    const json asked = {{"cb_buffer_size", "262144"}};
    EXPECT_TRUE(iok::hints_not_in_effect(asked, asked).empty());
}

TEST(HintsInEffect, WithoutTheLibraryLoadedTheStateIsAbsent) {
    // The unit tests do not link libiok_open_hints.so (the programs do).
    EXPECT_EQ(iok::open_hints_state(), "absent");
}

}  // namespace
