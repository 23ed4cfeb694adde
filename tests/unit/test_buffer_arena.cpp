// BufferArena: slices packed or aligned, one allocation kept across clear()
// (the next flush of a file re-uses mapped pages) and given back by release()
// (the runner does before a written file's close).
#include <gtest/gtest.h>

#include <cstdint>

#include "core/buffer_arena.hpp"

namespace {

std::uintptr_t at(iok::BufferArena& a, std::size_t slice) { return reinterpret_cast<std::uintptr_t>(a.data(slice)); }

TEST(BufferArena, SlicesPackedWithAlignmentOneAndAlignedOtherwise) {
    iok::BufferArena a(0);
    a.reserve(5, 1);
    a.reserve(8, 1);
    a.reserve(3, 8);
    ASSERT_TRUE(a.allocate());
    EXPECT_EQ(at(a, 1) - at(a, 0), 5u);   // back to back
    EXPECT_EQ(at(a, 2) - at(a, 0), 16u);  // 13 rounded up to 8
    EXPECT_EQ(a.total(), 19u);
}

TEST(BufferArena, ClearKeepsTheAllocationReleaseGivesItBack) {
    iok::BufferArena a(0);
    a.reserve(std::size_t(3) << 20, 1);  // large: a mapping of its own
    ASSERT_TRUE(a.allocate());
    const std::uintptr_t first = at(a, 0);
    a.clear();
    a.reserve(std::size_t(1) << 20, 1);
    EXPECT_FALSE(a.allocate());  // large enough: re-used
    EXPECT_EQ(at(a, 0), first);
    a.release();
    EXPECT_EQ(a.total(), 0u);
    a.reserve(std::size_t(1) << 20, 1);
    EXPECT_TRUE(a.allocate());  // nothing kept: a new allocation
}

}  // namespace
