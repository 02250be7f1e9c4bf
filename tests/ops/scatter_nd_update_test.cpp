// ScatterNDUpdate-3 and -15: OpenVINO's op_reference vectors (v3, v15 with every reduction,
// duplicate indices, boolean data), irlite's decisions (negative indices wrap, each coordinate is
// checked against its own dim, k = 0 replaces the whole tensor), a dtype sweep, wrapping integer
// reductions, shape rules with partial shapes, and error rows.
#include <gtest/gtest.h>

#include <limits>

#include "op_tester.hpp"
#include "kernels/all_ops.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

struct ScatterRow {
    const char* name;
    const char* reduction;  // nullptr: ScatterNDUpdate-3 (no attribute)
    ElementType type;
    Shape data_shape;
    std::vector<double> data;
    Shape indices_shape;
    std::vector<int64_t> indices;
    Shape updates_shape;
    std::vector<double> updates;
    std::vector<double> out;  // shape = data_shape
};

// From ../shared/conformance/ov_vectors.json (OpenVINO's op_reference/scatter_nd_update.cpp and
// the spec example), plus irlite's own rows at the end.
// clang-format off
const ScatterRow kRows[] = {
    {"1x1", nullptr, ElementType::f32, {1}, {1}, {1}, {0}, {}, {40}, {40}},
    {"2x2_by_1", nullptr, ElementType::f32, {2, 2}, {1, 2, 3, 4}, {2, 1}, {1, 0}, {2, 2}, {10, 20, 30, 40},
     {30, 40, 10, 20}},
    {"2x2_by_2", nullptr, ElementType::f32, {2, 2}, {1, 2, 3, 4}, {2, 2}, {0, 0, 1, 1}, {2}, {10, 40},
     {10, 2, 3, 40}},
    {"3x3_by_1", nullptr, ElementType::f32, {3, 3, 3},
     {11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35, 36, 37, 38, 39},
     {2, 1}, {0, 2}, {2, 3, 3}, {91, 92, 93, 94, 95, 96, 97, 98, 99, 81, 82, 83, 84, 85, 86, 87, 88, 89},
     {91, 92, 93, 94, 95, 96, 97, 98, 99, 21, 22, 23, 24, 25, 26, 27, 28, 29, 81, 82, 83, 84, 85, 86, 87, 88, 89}},
    {"3x3_by_2v2", nullptr, ElementType::f32, {3, 3, 3},
     {11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35, 36, 37, 38, 39},
     {2, 2, 3}, {0, 0, 0, 2, 2, 2, 1, 0, 0, 1, 2, 2}, {2, 2}, {91, 92, 81, 82},
     {91, 12, 13, 14, 15, 16, 17, 18, 19, 81, 22, 23, 24, 25, 26, 27, 28, 82, 31, 32, 33, 34, 35, 36, 37, 38, 92}},
    {"3x3_by_2", nullptr, ElementType::f32, {3, 3, 3},
     {11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35, 36, 37, 38, 39},
     {2, 2}, {0, 0, 2, 2}, {2, 3}, {91, 92, 93, 87, 88, 89},
     {91, 92, 93, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35, 36, 87, 88, 89}},
    {"3x3_by_3", nullptr, ElementType::f32, {3, 3, 3},
     {11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35, 36, 37, 38, 39},
     {2, 3}, {0, 0, 0, 2, 2, 2}, {2}, {91, 99},
     {91, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35, 36, 37, 38, 99}},
    {"1d_from_examples", nullptr, ElementType::f32, {8}, {1, 2, 3, 4, 5, 6, 7, 8}, {4, 1}, {4, 3, 1, 7}, {4},
     {9, 10, 11, 12}, {1, 11, 3, 10, 9, 6, 7, 12}},
    {"4x4_shape_from_examples", nullptr, ElementType::f32, {4, 4, 4},
     {1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 8, 7, 6, 5, 4,
      3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8}, {2, 1}, {0, 2}, {2, 4, 4},
     {5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4},
     {5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 1, 1, 1, 2,
      2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8}},
    {"4x4_v2", nullptr, ElementType::f32, {4, 4, 4},
     {1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 8, 7, 6, 5, 4,
      3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2},
     {0, 0, 2, 2, 1, 1, 3, 3}, {2, 2, 4}, {15, 16, 17, 18, 25, 26, 27, 28, 35, 36, 37, 38, 45, 46, 47, 58},
     {15, 16, 17, 18, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 35, 36, 37, 38, 8, 7, 6, 5, 4, 3, 2, 1, 8, 7, 6,
      5, 4, 3, 2, 1, 25, 26, 27, 28, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 45, 46, 47, 58}},
    {"v15_1x1_duplicated_indices", "none", ElementType::f32, {1}, {1}, {2, 1}, {0, 0}, {2}, {40, 50}, {50}},
    {"v15_tf_example_duplicated_indices", "none", ElementType::f32, {3, 2}, {1, 1, 1, 1, 1, 1}, {2, 2}, {0, 1, 0, 1},
     {2}, {5, 10}, {1, 10, 1, 1, 1, 1}},
    {"v15_3x3_by_1_duplicated_indices", "none", ElementType::f32, {3, 3, 3},
     {8, 12, 1, 5, 3, 19, 2, 4, 13, 7, 6, 25, 5, 12, 11, 23, 17, 2, 18, 23, 16, 17, 11, 22, 0, 10, 20}, {2, 1},
     {2, 2}, {2, 3, 3}, {4, 15, 11, 13, 15, 23, 1, 4, 4, 11, 2, 10, 1, 25, 25, 19, 23, 10},
     {8, 12, 1, 5, 3, 19, 2, 4, 13, 7, 6, 25, 5, 12, 11, 23, 17, 2, 11, 2, 10, 1, 25, 25, 19, 23, 10}},
    {"v15_3x3_by_3_duplicated_indices", "none", ElementType::f32, {3, 3, 3},
     {11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35, 36, 37, 38, 39},
     {3, 3}, {0, 0, 0, 2, -1, 2, -1, 2, -1}, {3}, {91, 99, 100},
     {91, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35, 36, 37, 38, 100}},
    {"v15_1d_from_examples_duplicated_indices", "none", ElementType::f32, {8}, {1, 2, 3, 4, 5, 6, 7, 8}, {5, 1},
     {4, 3, 1, 7, 1}, {5}, {9, 10, 11, 12, 22}, {1, 22, 3, 10, 9, 6, 7, 12}},
    {"v15_4x4_shape_from_examples_duplicated_indices", "none", ElementType::f32, {4, 4, 4},
     {1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 8, 7, 6, 5, 4,
      3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8}, {3, 1}, {0, 2, -2}, {3, 4, 4},
     {5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 10, 10, 10, 10,
      11, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 13},
     {5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 10, 10, 10, 10,
      11, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 13, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8}},
    {"v15_4x4_v2_duplicated_indices", "none", ElementType::f32, {4, 4, 4},
     {1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 8, 7, 6, 5, 4,
      3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8}, {3, 2, 2},
     {0, 0, 2, 2, 1, 1, 3, 3, 0, 0, 2, 2}, {3, 2, 4},
     {15, 16, 17, 18, 25, 26, 27, 28, 35, 36, 37, 38, 45, 46, 47, 48, 55, 56, 57, 58, 65, 66, 67, 68},
     {55, 56, 57, 58, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 35, 36, 37, 38, 8, 7, 6, 5, 4, 3, 2, 1, 8, 7, 6,
      5, 4, 3, 2, 1, 65, 66, 67, 68, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 45, 46, 47, 48}},
    {"v15_1x1_sum", "sum", ElementType::f32, {1}, {1}, {1}, {0}, {}, {40}, {41}},
    {"v15_1x1_sub", "sub", ElementType::f32, {1}, {40}, {1}, {0}, {}, {40}, {0}},
    {"v15_1x1_prod", "prod", ElementType::f32, {1}, {2}, {1}, {0}, {}, {40}, {80}},
    {"v15_1x1_max", "max", ElementType::f32, {1}, {2}, {1}, {0}, {}, {40}, {40}},
    {"v15_1x1_min", "min", ElementType::f32, {1}, {2}, {1}, {0}, {}, {40}, {2}},
    {"v15_tf_example_sum", "sum", ElementType::f32, {3, 2}, {1, 1, 1, 1, 1, 1}, {2, 2}, {0, 1, 2, 0}, {2}, {5, 10},
     {1, 6, 1, 1, 11, 1}},
    {"v15_tf_example_sub", "sub", ElementType::f32, {3, 2}, {1, 6, 1, 1, 11, 1}, {2, 2}, {0, 1, 2, 0}, {2}, {5, 10},
     {1, 1, 1, 1, 1, 1}},
    {"v15_tf_example_prod", "prod", ElementType::f32, {3, 2}, {1, 2, 1, 1, 2, 1}, {2, 2}, {0, 1, 2, 0}, {2}, {5, 10},
     {1, 10, 1, 1, 20, 1}},
    {"v15_tf_example_max", "max", ElementType::f32, {3, 2}, {1, 1, 1, 1, 1, 1}, {2, 2}, {0, 1, 2, 0}, {2}, {5, 10},
     {1, 5, 1, 1, 10, 1}},
    {"v15_tf_example_min", "min", ElementType::f32, {3, 2}, {15, 15, 15, 15, 15, 15}, {2, 2}, {0, 1, 2, 0}, {2},
     {5, 10}, {15, 5, 15, 15, 10, 15}},
    {"v15_3x3_by_1_sum", "sum", ElementType::f32, {3, 3, 3},
     {8, 12, 1, 5, 3, 19, 2, 4, 13, 7, 6, 25, 5, 12, 11, 23, 17, 2, 18, 23, 16, 17, 11, 22, 0, 10, 20}, {2, 1},
     {0, 2}, {2, 3, 3}, {4, 15, 11, 13, 15, 23, 1, 4, 4, 11, 2, 10, 1, 25, 25, 19, 23, 10},
     {12, 27, 12, 18, 18, 42, 3, 8, 17, 7, 6, 25, 5, 12, 11, 23, 17, 2, 29, 25, 26, 18, 36, 47, 19, 33, 30}},
    {"v15_3x3_by_1_prod", "prod", ElementType::f32, {3, 3, 3},
     {8, 12, 1, 5, 3, 19, 2, 4, 13, 7, 6, 25, 5, 12, 11, 23, 17, 2, 18, 23, 16, 17, 11, 22, 0, 10, 20}, {2, 1},
     {0, 2}, {2, 3, 3}, {4, 15, 11, 13, 15, 23, 1, 4, 4, 11, 2, 10, 1, 25, 25, 19, 23, 10},
     {32, 180, 11, 65, 45, 437, 2, 16, 52, 7, 6, 25, 5, 12, 11, 23, 17, 2, 198, 46, 160, 17, 275, 550, 0, 230, 200}},
    {"v15_3x3_by_1_max", "max", ElementType::f32, {3, 3, 3},
     {8, 12, 1, 5, 3, 19, 2, 4, 13, 7, 6, 25, 5, 12, 11, 23, 17, 2, 18, 23, 16, 17, 11, 22, 0, 10, 20}, {2, 1},
     {0, 2}, {2, 3, 3}, {4, 15, 11, 13, 15, 23, 1, 4, 4, 11, 2, 10, 1, 25, 25, 19, 23, 10},
     {8, 15, 11, 13, 15, 23, 2, 4, 13, 7, 6, 25, 5, 12, 11, 23, 17, 2, 18, 23, 16, 17, 25, 25, 19, 23, 20}},
    {"v15_3x3_by_1_min", "min", ElementType::f32, {3, 3, 3},
     {8, 12, 1, 5, 3, 19, 2, 4, 13, 7, 6, 25, 5, 12, 11, 23, 17, 2, 18, 23, 16, 17, 11, 22, 0, 10, 20}, {2, 1},
     {0, 2}, {2, 3, 3}, {4, 15, 11, 13, 15, 23, 1, 4, 4, 11, 2, 10, 1, 25, 25, 19, 23, 10},
     {4, 12, 1, 5, 3, 19, 1, 4, 4, 7, 6, 25, 5, 12, 11, 23, 17, 2, 11, 2, 10, 1, 11, 22, 0, 10, 10}},
    {"v15_3x3_by_1_sub", "sub", ElementType::f32, {3, 3, 3},
     {37, 29, 48, 48, 27, 29, 26, 42, 42, 48, 49, 25, 39, 36, 47, 34, 49, 42, 35, 37, 49, 42, 46, 26, 41, 31, 41},
     {2, 1}, {0, 2}, {2, 3, 3}, {18, 13, 13, 19, 13, 1, 25, 24, 15, 6, 12, 17, 12, 10, 8, 18, 16, 19},
     {19, 16, 35, 29, 14, 28, 1, 18, 27, 48, 49, 25, 39, 36, 47, 34, 49, 42, 29, 25, 32, 30, 36, 18, 23, 15, 22}},
    {"v15_3x3_by_3_duplicated_indices_sum", "sum", ElementType::f32, {3, 3, 3},
     {11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35, 36, 37, 38, 39},
     {3, 3}, {0, 0, 0, 2, -1, 2, -1, 2, -1}, {3}, {2, 4, 6},
     {13, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35, 36, 37, 38, 49}},
    {"v15_3x3_by_3_duplicated_indices_sub", "sub", ElementType::f32, {3, 3, 3},
     {11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35, 36, 37, 38, 39},
     {3, 3}, {0, 0, 0, 2, -1, 2, -1, 2, -1}, {3}, {2, 4, 6},
     {9, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35, 36, 37, 38, 29}},
    {"v15_3x3_by_3_duplicated_indices_prod", "prod", ElementType::f32, {3, 3, 3},
     {11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35, 36, 37, 38, 39},
     {3, 3}, {0, 0, 0, 2, -1, 2, -1, 2, -1}, {3}, {2, 4, 6},
     {22, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35, 36, 37, 38, 936}},
    {"v15_3x3_by_3_duplicated_indices_max", "max", ElementType::f32, {3, 3, 3},
     {11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35, 36, 37, 38, 39},
     {3, 3}, {0, 0, 0, 2, -1, 2, -1, 2, -1}, {3}, {2, 4, 6},
     {11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35, 36, 37, 38, 39}},
    {"v15_3x3_by_3_duplicated_indices_min", "min", ElementType::f32, {3, 3, 3},
     {11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35, 36, 37, 38, 39},
     {3, 3}, {0, 0, 0, 2, -1, 2, -1, 2, -1}, {3}, {2, 4, 6},
     {2, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35, 36, 37, 38, 4}},
    {"v15_3x3_by_1_sum_boolean", "sum", ElementType::boolean, {3, 3, 3},
     {1, 1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1, 0}, {2, 1}, {0, 2}, {2, 3, 3},
     {0, 1, 0, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0},
     {1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0}},
    {"v15_3x3_by_1_prod_boolean", "prod", ElementType::boolean, {3, 3, 3},
     {1, 1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1, 0}, {2, 1}, {0, 2}, {2, 3, 3},
     {0, 1, 0, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0},
     {0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0}},
    {"v15_3x3_by_1_max_boolean", "max", ElementType::boolean, {3, 3, 3},
     {1, 1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1, 0}, {2, 1}, {0, 2}, {2, 3, 3},
     {0, 1, 0, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0},
     {1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0}},
    {"v15_3x3_by_1_min_boolean", "min", ElementType::boolean, {3, 3, 3},
     {1, 1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1, 0}, {2, 1}, {0, 2}, {2, 3, 3},
     {0, 1, 0, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0},
     {0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0}},
    {"v15_3x3_by_1_sub_boolean", "sub", ElementType::boolean, {3, 3, 3},
     {1, 1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1, 0}, {2, 1}, {0, 2}, {2, 3, 3},
     {0, 1, 0, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0},
     {1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 0, 0}},
    {"example1", nullptr, ElementType::f32, {8}, {1, 2, 3, 4, 5, 6, 7, 8}, {4, 1}, {4, 3, 1, 7}, {4}, {9, 10, 11, 12},
     {1, 11, 3, 10, 9, 6, 7, 12}},
    // irlite decisions.
    {"negative_indices_wrap", nullptr, ElementType::f32, {2, 3}, {1, 2, 3, 4, 5, 6}, {2, 2}, {-1, -3, 0, -1}, {2},
     {10, 20}, {1, 2, 20, 10, 5, 6}},
    {"duplicates_last_wins", nullptr, ElementType::f32, {4}, {0, 0, 0, 0}, {3, 1}, {2, -2, 2}, {3}, {1, 2, 3},
     {0, 0, 3, 0}},
    {"k0_replaces_whole_tensor", nullptr, ElementType::f32, {2, 2}, {1, 2, 3, 4}, {2, 0}, {}, {2, 2, 2},
     {5, 6, 7, 8, 9, 10, 11, 12}, {9, 10, 11, 12}},
    {"k0_sum", "sum", ElementType::f32, {2, 2}, {1, 2, 3, 4}, {2, 0}, {}, {2, 2, 2}, {5, 6, 7, 8, 9, 10, 11, 12},
     {15, 18, 21, 24}},
    {"no_index_tuples", nullptr, ElementType::f32, {2, 2}, {1, 2, 3, 4}, {0, 2}, {}, {0}, {}, {1, 2, 3, 4}},
    {"one_element_updates_for_scalar", nullptr, ElementType::f32, {3}, {1, 2, 3}, {1}, {1}, {1, 1}, {7}, {1, 7, 3}},
    {"slice_of_empty_dim", nullptr, ElementType::f32, {2, 0}, {}, {1, 1}, {1}, {1, 0}, {}, {}},
};
// clang-format on

std::vector<IrAttribute> attrs_of(const ScatterRow& r) {
    if (!r.reduction) return {};
    return {{"reduction", r.reduction}};
}

OpTester tester_for(const ScatterRow& r) { return OpTester("ScatterNDUpdate", r.reduction ? 15 : 3, attrs_of(r)); }

std::vector<Tensor> inputs_of(const ScatterRow& r, ElementType type, ElementType index_type) {
    std::vector<double> idx(r.indices.begin(), r.indices.end());
    return {make_tensor(type, r.data_shape, r.data), make_tensor(index_type, r.indices_shape, idx),
            make_tensor(type, r.updates_shape, r.updates)};
}

class ScatterNDUpdateCompute : public ::testing::TestWithParam<ScatterRow> {};

TEST_P(ScatterNDUpdateCompute, MatchesExpected) {
    const ScatterRow& r = GetParam();
    const OpTester scatter = tester_for(r);
    for (ElementType index_type : {ElementType::i64, ElementType::i32}) {
        SCOPED_TRACE(to_string(index_type));
        const Tensor out = scatter.run1(inputs_of(r, r.type, index_type), {0, 1, 2});
        EXPECT_TRUE(tensors_equal(out, make_tensor(r.type, r.data_shape, r.out)));
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, ScatterNDUpdateCompute, ::testing::ValuesIn(kRows),
                         [](const auto& row) { return std::string(row.param.name); });

const ScatterRow& row_named(const std::string& name) {
    for (const ScatterRow& r : kRows)
        if (name == r.name) return r;
    throw std::runtime_error("no row " + name);
}

// Every element type; `none` moves bytes, the reductions compute in the type.
TEST(ScatterNDUpdate, DtypeSweep) {
    for (const char* name : {"4x4_v2", "v15_4x4_v2_duplicated_indices", "v15_3x3_by_1_sum", "v15_3x3_by_1_max",
                             "v15_3x3_by_3_duplicated_indices_min"}) {
        const ScatterRow& r = row_named(name);
        for (int t = 0; t < kNumElementTypes; ++t) {
            const auto type = static_cast<ElementType>(t);
            if (type == ElementType::boolean) continue;  // boolean has rows of its own
            SCOPED_TRACE(std::string(name) + " " + to_string(type));
            const Tensor out = tester_for(r).run1(inputs_of(r, type, ElementType::i32));
            EXPECT_TRUE(tensors_equal(out, make_tensor(type, r.data_shape, r.out)));
        }
    }
}

// Integer reductions wrap (computed in the unsigned type, no signed-overflow UB); f16/bf16 go
// through f32.
TEST(ScatterNDUpdate, ReductionsWrapAndRound) {
    const auto run = [](const char* reduction, Tensor data, Tensor updates) {
        return OpTester("ScatterNDUpdate", 15, {{"reduction", reduction}}).run1({data, i64s({0}), updates});
    };
    EXPECT_EQ(values_of<int8_t>(run("sum", make_tensor<int8_t>({1}, {100}), make_tensor<int8_t>({}, {100}))),
              std::vector<int8_t>{-56});
    EXPECT_EQ(values_of<uint8_t>(run("prod", make_tensor<uint8_t>({1}, {16}), make_tensor<uint8_t>({}, {16}))),
              std::vector<uint8_t>{0});
    EXPECT_EQ(values_of<uint16_t>(run("prod", make_tensor<uint16_t>({1}, {65535}), make_tensor<uint16_t>({}, {65535}))),
              std::vector<uint16_t>{1});
    EXPECT_EQ(values_of<int32_t>(run("sub", make_tensor<int32_t>({1}, {INT32_MIN}), make_tensor<int32_t>({}, {1}))),
              std::vector<int32_t>{INT32_MAX});
    EXPECT_EQ(values_of<int64_t>(run("prod", make_tensor<int64_t>({1}, {INT64_MAX}), make_tensor<int64_t>({}, {2}))),
              std::vector<int64_t>{-2});
    EXPECT_EQ(values_of<uint64_t>(run("sub", make_tensor<uint64_t>({1}, {0}), make_tensor<uint64_t>({}, {1}))),
              std::vector<uint64_t>{UINT64_MAX});
    EXPECT_EQ(to_doubles(run("sum", make_tensor(ElementType::f16, {1}, {1.5}), make_tensor(ElementType::f16, {}, {2}))),
              std::vector<double>{3.5});
    EXPECT_EQ(
        to_doubles(run("min", make_tensor(ElementType::bf16, {1}, {-3}), make_tensor(ElementType::bf16, {}, {2}))),
        std::vector<double>{-3});
}

TEST(ScatterNDUpdate, Versions) {
    EXPECT_EQ(builtin_ops().find("ScatterNDUpdate", 3)->version, 3);
    EXPECT_EQ(builtin_ops().find("ScatterNDUpdate", 14)->version, 3);
    EXPECT_EQ(builtin_ops().find("ScatterNDUpdate", 15)->version, 15);
    EXPECT_EQ(builtin_ops().find("ScatterNDUpdate", 2), nullptr);
    EXPECT_TRUE(throws_error(
        [] {
            OpTester("ScatterNDUpdate", 15, {{"reduction", "mean"}}).attrs();
        },
        ErrorKind::Attribute, "attribute-invalid",
        "attribute 'reduction' = \"mean\" is invalid: expected one of none, sum, sub, prod, min, max"));
}

// ---- shape rule ------------------------------------------------------------------------------

struct RuleRow {
    const char* name;
    PartialShape data, indices, updates;
    ElementType type;
};

TEST(ScatterNDUpdate, ShapeRuleReturnsDataShape) {
    const RuleRow rows[] = {
        {"static", {2, 3, 5, 1}, {1, 3}, {1, 1}, ElementType::i64},
        {"partial_data", {kDynamic, 2, kDynamic}, {3, 2}, {3, 5}, ElementType::f32},
        {"dynamic_rank_indices", {kDynamic, 2, 4}, PartialShape::dynamic_rank(), {3, 5}, ElementType::f64},
        {"dynamic_rank_updates", {5, 2, 4}, {3, 2}, PartialShape::dynamic_rank(), ElementType::f64},
        {"dynamic_indices_dims", {5, 2, 4}, {kDynamic, 1}, {3, 2, kDynamic}, ElementType::i64},
        {"dynamic_last_indices_dim", {5, 2, 4}, {3, kDynamic}, {9, 9, 9, 9}, ElementType::u8},
        {"scalar_updates", {5, 2, 4}, {3}, {}, ElementType::i8},
        {"one_element_updates", {5, 2, 4}, {3}, {1, 1}, ElementType::boolean},
        {"k0", {5, 2}, {7, 0}, {7, 5, 2}, ElementType::bf16},
        {"dynamic_rank_data", PartialShape::dynamic_rank(), {3, 2}, {3, 5}, ElementType::f16},
    };
    for (const RuleRow& r : rows) {
        SCOPED_TRACE(r.name);
        const std::vector<OutputInfo> out =
            OpTester("ScatterNDUpdate", 3)
                .infer({unknown(r.type, r.data), unknown(ElementType::i32, r.indices), unknown(r.type, r.updates)});
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(out[0].type, r.type);
        EXPECT_EQ(out[0].shape, r.data);
    }
}

// ---- errors --------------------------------------------------------------------------------

struct ErrorRow {
    const char* name;
    std::vector<RuleInput> inputs;
    ErrorKind kind;
    const char* code;
    int port;
    const char* message;
};

TEST(ScatterNDUpdate, ShapeRuleErrors) {
    const auto f32 = [](PartialShape s) { return unknown(ElementType::f32, std::move(s)); };
    const auto i32 = [](PartialShape s) { return unknown(ElementType::i32, std::move(s)); };
    const ErrorRow rows[] = {
        {"indices_f16",
         {f32({2, 3, 4}), unknown(ElementType::f16, {2, 1}), f32({2, 3, 4})},
         ErrorKind::Type,
         "index-type",
         1,
         "indices must be an integer tensor (i32 or i64), got f16"},
        {"indices_u32",
         {f32({2, 3, 4}), unknown(ElementType::u32, {2, 1}), f32({2, 3, 4})},
         ErrorKind::Type,
         "index-type",
         1,
         "got u32"},
        {"updates_type",
         {f32({3, 3, 3}), i32({1}), unknown(ElementType::i32, {3, 3})},
         ErrorKind::Type,
         "element-type-mismatch",
         2,
         "updates has element type i32, data has f32; they must be the same"},
        {"updates_rank",
         {f32({3, 3, 3}), i32({1}), f32({3, 3, 3})},
         ErrorKind::ShapeRule,
         "updates-rank",
         2,
         "updates has rank 3, expected 2 (data rank 3 + indices rank 1 - indices.shape[-1] 1 - 1)"},
        {"updates_tail_shape",
         {f32({3, 3, 3}), i32({1}), f32({2, 3})},
         ErrorKind::ShapeRule,
         "updates-shape",
         2,
         "updates.shape[0:] = [2,3] must equal data.shape[1:] = [3,3]"},
        {"updates_head_shape",
         {f32({3, 3, 3}), i32({4, 2}), f32({5, 3})},
         ErrorKind::ShapeRule,
         "updates-shape",
         2,
         "updates.shape[:1] = [5] must equal indices.shape[:-1] = [4]"},
        {"updates_not_one_element",
         {f32({3, 3}), i32({2}), f32({2})},
         ErrorKind::ShapeRule,
         "updates-shape",
         2,
         "updates must hold one element"},
        {"indices_last_dim",
         {f32({3, 3, 3}), i32({2, 4}), f32({2, 3, 3})},
         ErrorKind::ShapeRule,
         "indices-last-dim",
         1,
         "indices.shape[-1] = 4 is more than the data rank 3"},
        {"scalar_data",
         {f32({}), i32({1}), f32({})},
         ErrorKind::ShapeRule,
         "rank-invalid",
         0,
         "data must have rank >= 1"},
        {"scalar_indices",
         {f32({3}), i32({}), f32({})},
         ErrorKind::ShapeRule,
         "rank-invalid",
         1,
         "indices must have rank >= 1"},
    };
    for (const ErrorRow& r : rows) {
        SCOPED_TRACE(r.name);
        EXPECT_TRUE(
            throws_error([&] { OpTester("ScatterNDUpdate", 3).infer(r.inputs); }, r.kind, r.code, r.message, r.port));
    }
}

// Index values are checked coordinate by coordinate: Const ones at load time, the others at run time.
TEST(ScatterNDUpdate, IndexErrors) {
    struct Row {
        const char* name;
        Shape data_shape, indices_shape;
        std::vector<int64_t> indices;
        Shape updates_shape;
        const char* message;
    };
    const Row rows[] = {
        // OpenVINO checks only the flat offset here; (1, 3) must not become element (2, 0).
        {"coordinate_past_its_dim",
         {3, 3},
         {1, 2},
         {1, 3},
         {1},
         "indices[0,1] = 3: value 3 not in [-3, 2] (data dim 1 has size 3)"},
        {"flat_offset_past_the_end", {2, 3}, {1, 2}, {1, 3}, {1}, "indices[0,1] = 3: value 3 not in [-3, 2]"},
        {"too_negative",
         {4, 2},
         {2, 1},
         {0, -5},
         {2, 2},
         "indices[1,0] = -5: value -5 not in [-4, 3] (data dim 0 has size 4)"},
        {"into_empty_dim",
         {2, 0},
         {1, 2},
         {1, 0},
         {1},
         "indices[0,1] = 0: value 0 not in [0, -1] (data dim 1 has size 0)"},
    };
    for (const Row& r : rows) {
        SCOPED_TRACE(r.name);
        for (ElementType index_type : {ElementType::i32, ElementType::i64}) {
            std::vector<double> idx(r.indices.begin(), r.indices.end());
            const std::vector<Tensor> in = {iota(ElementType::f32, r.data_shape),
                                            make_tensor(index_type, r.indices_shape, idx),
                                            iota(ElementType::f32, r.updates_shape)};
            // Const indices: the shape rule reports them at load time (what `irlite check` sees);
            // indices bound at run time: the kernel does, with the same words.
            EXPECT_TRUE(throws_error([&] { OpTester("ScatterNDUpdate", 3).run(in); }, ErrorKind::Value,
                                     "index-out-of-range", std::string("input 1 'indices': ") + r.message, 1));
            EXPECT_TRUE(throws_error([&] { OpTester("ScatterNDUpdate", 3).run_kernel(in, {1}); }, ErrorKind::Value,
                                     "index-out-of-range", std::string("input 1 'indices': ") + r.message, 1));
        }
    }
}

}  // namespace
}  // namespace irlite
