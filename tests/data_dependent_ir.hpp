// Small models whose outputs' sizes depend on the input values (NonZero-3, NonMaxSuppression-9),
// for the tests of the executor's DynamicOutputBuffers: the steady state allocates nothing, a run
// that needs more memory grows the buffer, and one that needs less gets the smaller shape.
#pragma once

#include <vector>

#include "ir_builder.hpp"

namespace irlite::testing {

// x f32 [2, 3] -> NonZero (i64) -> y [2, n].
inline IrBuilder non_zero_model() {
    IrBuilder b;
    b.parameter(0, "x", "f32", {2, 3});
    b.layer(1, "nz", "NonZero", "opset3", "output_type=\"i64\"", {{0, "FP32", {2, 3}, ""}}, {{1, "I64", {2, -1}, "y"}});
    b.result(2, "out", "i64", {2, -1});
    b.edge(0, 0, 1, 0).edge(1, 1, 2, 0);
    return b;
}

// boxes f32 [1, 6, 4] and scores f32 [1, 1, 6] -> NonMaxSuppression-9 (at most 6 boxes, IoU 0.5,
// score threshold 0, sorted by score) -> indices i64 [n, 3], scores f32 [n, 3], valid i64 [1].
inline IrBuilder nms_model() {
    IrBuilder b;
    const int64_t max_out = 6;
    const float iou = 0.5f, score = 0.0f;
    b.parameter(0, "boxes", "f32", {1, 6, 4});
    b.parameter(1, "scores", "f32", {1, 1, 6});
    b.constant(2, "max_out", "i64", {}, &max_out, sizeof max_out);
    b.constant(3, "iou", "f32", {}, &iou, sizeof iou);
    b.constant(4, "score", "f32", {}, &score, sizeof score);
    b.layer(5, "nms", "NonMaxSuppression", "opset9", "box_encoding=\"corner\" sort_result_descending=\"true\"",
            {{0, "FP32", {1, 6, 4}, ""}, {1, "FP32", {1, 1, 6}, ""}, {2, "I64", {}, ""}, {3, "FP32", {}, ""}, {4, "FP32", {}, ""}},
            {{5, "I64", {-1, 3}, "indices"}, {6, "FP32", {-1, 3}, "selected_scores"}, {7, "I64", {1}, "valid"}});
    b.result(6, "r0", "i64", {-1, 3});
    b.result(7, "r1", "f32", {-1, 3});
    b.result(8, "r2", "i64", {1});
    b.edge(0, 0, 5, 0).edge(1, 0, 5, 1).edge(2, 0, 5, 2).edge(3, 0, 5, 3).edge(4, 0, 5, 4);
    b.edge(5, 5, 6, 0).edge(5, 6, 7, 0).edge(5, 7, 8, 0);
    return b;
}

// Six boxes for nms_model: 0, 1 and 2 overlap (IoU > 0.5), 3 and 4 overlap, 5 stands alone.
inline std::vector<float> nms_boxes() {
    return {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f, 0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100, 1, 101};
}

}  // namespace irlite::testing
