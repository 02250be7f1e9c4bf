// kernels/detail/strided_copy: every element width (1, 2, 4, 8 bytes and odd sizes), ranks 0..6,
// negative and zero steps, coalescing cases, checked against a per-element reference; and the
// out-of-range guard.
#include "kernels/detail/strided_copy.hpp"
#include "kernels/detail/parallel.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "irlite/error.hpp"

namespace irlite {
namespace {

struct Region {
    const char* name;
    Shape src_shape;
    std::vector<int64_t> start, step;
    Shape out_shape;
};

const Region kRegions[] = {
    {"scalar", {}, {}, {}, {}},
    {"whole_1d", {7}, {0}, {1}, {7}},
    {"whole_4d", {2, 3, 4, 5}, {0, 0, 0, 0}, {1, 1, 1, 1}, {2, 3, 4, 5}},
    {"inner_run", {4, 10}, {1, 2}, {1, 1}, {2, 5}},
    {"outer_rows_whole_inner", {6, 3, 4}, {1, 0, 0}, {2, 1, 1}, {3, 3, 4}},
    {"strided_inner", {3, 10}, {0, 1}, {1, 3}, {3, 3}},
    {"reverse_all", {3, 4}, {2, 3}, {-1, -1}, {3, 4}},
    {"reverse_inner", {2, 2, 5}, {0, 0, 4}, {1, 1, -2}, {2, 2, 3}},
    {"repeat_with_step_0", {3, 2}, {1, 0}, {0, 1}, {4, 2}},
    {"single_element", {5, 5, 5}, {4, 0, 2}, {1, 1, 1}, {1, 1, 1}},
    {"ones_in_between", {3, 1, 4, 1, 2}, {0, 0, 1, 0, 0}, {1, 1, 1, 1, 1}, {3, 1, 2, 1, 2}},
    {"rank_6_mixed", {2, 3, 2, 3, 2, 3}, {1, 2, 0, 0, 1, 2}, {-1, -2, 1, 2, 1, -1}, {2, 2, 2, 2, 1, 3}},
    {"empty_output", {4, 4}, {0, 0}, {1, 1}, {0, 4}},
    {"huge_steps_one_item", {5}, {4}, {INT64_MIN}, {1}},
};

// dst[o] = src[start + o * step], one element at a time.
std::vector<unsigned char> reference(const std::vector<unsigned char>& src, const Region& r, size_t elem) {
    const std::vector<int64_t> strides = row_major_strides(r.src_shape);
    const int64_t n = checked_num_elements(r.out_shape);
    std::vector<unsigned char> out(static_cast<size_t>(n) * elem);
    std::vector<int64_t> coord(r.out_shape.size(), 0);
    for (int64_t i = 0; i < n; ++i) {
        int64_t at = 0;
        for (size_t d = 0; d < coord.size(); ++d) at += (r.start[d] + coord[d] * r.step[d]) * strides[d];
        std::memcpy(out.data() + static_cast<size_t>(i) * elem, src.data() + static_cast<size_t>(at) * elem, elem);
        for (size_t d = coord.size(); d-- > 0;)
            if (++coord[d] < r.out_shape[d])
                break;
            else
                coord[d] = 0;
    }
    return out;
}

TEST(StridedCopy, MatchesReferenceForEveryWidth) {
    for (const Region& r : kRegions) {
        for (size_t elem : {1, 2, 3, 4, 8, 16}) {
            SCOPED_TRACE(std::string(r.name) + " elem " + std::to_string(elem));
            std::vector<unsigned char> src(static_cast<size_t>(checked_num_elements(r.src_shape)) * elem);
            for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 3);
            const std::vector<unsigned char> want = reference(src, r, elem);
            // One guard element past the end must stay untouched.
            std::vector<unsigned char> dst(want.size() + elem, 0xA5);
            detail::strided_copy(src.data(), r.src_shape, dst.data(), r.out_shape, elem, r.start, r.step);
            EXPECT_EQ(std::vector<unsigned char>(dst.begin(), dst.begin() + static_cast<std::ptrdiff_t>(want.size())),
                      want);
            for (size_t i = want.size(); i < dst.size(); ++i) EXPECT_EQ(dst[i], 0xA5) << "wrote past the end";
        }
    }
}

TEST(StridedCopy, RejectsRegionsOutsideTheSource) {
    const struct {
        const char* name;
        Shape src_shape;
        std::vector<int64_t> start, step;
        Shape out_shape;
    } rows[] = {
        {"start_past_end", {4}, {4}, {1}, {1}},         {"last_past_end", {4}, {1}, {1}, {4}},
        {"negative_start", {4}, {-1}, {1}, {1}},        {"runs_below_zero", {4, 4}, {0, 2}, {1, -1}, {4, 4}},
        {"step_overflows", {4}, {1}, {INT64_MAX}, {3}}, {"rank_mismatch", {4, 4}, {0}, {1}, {4}},
    };
    std::vector<unsigned char> src(64), dst(64);
    for (const auto& r : rows) {
        SCOPED_TRACE(r.name);
        try {
            detail::strided_copy(src.data(), r.src_shape, dst.data(), r.out_shape, 1, r.start, r.step);
            ADD_FAILURE() << "did not throw";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Value);
            EXPECT_EQ(e.code(), "strided-copy-out-of-range");
        }
    }
}

// Copies large enough for the streaming path (detail::kStreamingBytes), which prefetches the next
// block, and reversed rows, which run at the CPU's widest vector level: every other row of 4 KiB,
// and each row reversed, on 16 MiB of 4-byte items.
TEST(StridedCopy, LargeCopiesMatchTheReference) {
    const Region large[] = {
        {"every_other_row", {4096, 1024}, {1, 0}, {2, 1}, {2048, 1024}},
        {"rows_reversed", {4096, 1024}, {0, 1023}, {1, -1}, {4096, 1024}},
    };
    for (const Region& r : large) {
        SCOPED_TRACE(r.name);
        const size_t elem = 4;
        ASSERT_GE(static_cast<size_t>(checked_num_elements(r.out_shape)) * elem, detail::kStreamingBytes);
        std::vector<unsigned char> src(static_cast<size_t>(checked_num_elements(r.src_shape)) * elem);
        for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + i / 4096);
        const std::vector<unsigned char> want = reference(src, r, elem);
        std::vector<unsigned char> dst(want.size(), 0xA5);
        detail::strided_copy(src.data(), r.src_shape, dst.data(), r.out_shape, elem, r.start, r.step);
        EXPECT_TRUE(dst == want);
    }
}

// view_copy, the general form: a transpose through byte strides.
TEST(StridedCopy, ViewCopyTransposes) {
    const std::vector<int16_t> src = {0, 1, 2, 3, 4, 5};  // [2, 3]
    std::vector<int16_t> dst(6, -1);
    detail::view_copy(src.data(), 12, 0, dst.data(), {3, 2}, {2, 6}, 2);
    EXPECT_EQ(dst, (std::vector<int16_t>{0, 3, 1, 4, 2, 5}));
    EXPECT_THROW(detail::view_copy(src.data(), 12, 2, dst.data(), {3, 2}, {2, 6}, 2), Error);
}

}  // namespace
}  // namespace irlite
