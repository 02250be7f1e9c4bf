// ExperimentalDetectronPriorGridGenerator-6 (opset6+): the prior (anchor) boxes of every cell of a
// feature map: each prior shifted to the cell's centre.
// Inputs: 0 'priors' [P, 4] (x0, y0, x1, y1) of a floating-point type T (f16, bf16, f32, f64);
// 1 'feature_map' [N, C, featmap_height, featmap_width] and 2 'im_data' [N, C', image_height,
// image_width], of any floating-point type, of which only the shapes are read.
// Attributes (all optional): flatten (true), h (0), w (0), stride_x (0.0), stride_y (0.0).
// Output (T): [featmap_height * featmap_width * P, 4] with flatten, else [featmap_height,
// featmap_width, P, 4].
// The grid has layer_height = h (featmap_height when h = 0) rows and layer_width = w
// (featmap_width when w = 0) columns; its steps are step_x = stride_x (image_width / layer_width
// when 0) and step_y = stride_y (image_height / layer_height when 0). For row i, column j and
// prior s, in that nesting order, one output row: (x0 + step_x * (j + 0.5), y0 + step_y * (i + 0.5),
// x1 + step_x * (j + 0.5), y1 + step_y * (i + 0.5)), written one after the other from the start
// of the output.
// Choices where the specification is silent or loose (each written in the README too):
// - When h or w makes the grid smaller than the feature map, the rows after the grid's (the spec's
//   "undefined values") are zeros; the grid's rows are contiguous, not placed at their (i, j) of
//   the 4-D layout (as OpenVINO's reference writes them).
// - h > featmap_height or w > featmap_width is an error (the spec's range), as are negative h, w or
//   strides.
// - Batch and channel counts of inputs 1 and 2 are not checked: the spec asks for equal channels
//   but its own example has 256 and 3.
// - The steps are computed in double, then each coordinate is rounded to T once.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "engine/op.hpp"
#include "kernels/detail/eltwise.hpp"
#include "kernels/detail/float_dispatch.hpp"

namespace irlite {
namespace {

constexpr size_t kPriors = 0, kFeatureMap = 1, kImage = 2;

struct PriorGridAttrs : OpAttrs {
    bool flatten = true;
    int64_t h = 0, w = 0;
    double stride_x = 0, stride_y = 0;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<PriorGridAttrs>();
    a->flatten = r.get_bool("flatten", true);
    a->h = r.get_i64("h", 0);
    a->w = r.get_i64("w", 0);
    for (const auto& [name, v] : {std::pair<const char*, int64_t>{"h", a->h}, {"w", a->w}})
        if (v < 0)
            throw Error(ErrorKind::Attribute, "attribute-invalid",
                        str("attribute '", name, "' = ", v, ": it must be a non-negative integer (allowed [0, ",
                            name[0] == 'h' ? "featmap_height" : "featmap_width", "]; 0 = the feature map's)"));
    a->stride_x = r.get_f64("stride_x", 0.0);
    a->stride_y = r.get_f64("stride_y", 0.0);
    for (const auto& [name, v] : {std::pair<const char*, double>{"stride_x", a->stride_x}, {"stride_y", a->stride_y}})
        if (!(v >= 0) || std::isinf(v))
            throw Error(ErrorKind::Attribute, "attribute-invalid",
                        str("attribute '", name, "' = ", v,
                            ": it must be a finite non-negative number (allowed [0, inf); 0 = image size / grid size)"));
    return a;
}

int64_t multiply(int64_t a, int64_t b) { return a == kDynamic || b == kDynamic ? kDynamic : a * b; }

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const auto& a = ctx.attrs<PriorGridAttrs>();
    const ElementType type = ctx.type(kPriors);
    for (size_t i = 0; i < ctx.num_inputs(); ++i)
        if (!is_storable_float(ctx.type(i)))
            throw ctx.input_error(i, ErrorKind::Type, "element-type-unsupported",
                                  str(ctx.def().input_role(i), " must be a floating-point tensor (f16, bf16, f32, f64), got ",
                                      to_string(ctx.type(i))));
    const PartialShape& priors = ctx.shape(kPriors);
    int64_t count = kDynamic;
    if (priors.rank_known()) {
        if (priors.rank() != 2)
            throw ctx.input_error(kPriors, ErrorKind::ShapeRule, "rank-invalid",
                                  str("priors must be 2-D [number_of_priors, 4], got ", to_string(priors)));
        if (!dims_compatible(priors[1], 4))
            throw ctx.input_error(kPriors, ErrorKind::ShapeRule, "shape-invalid",
                                  str("priors must be [number_of_priors, 4], got ", to_string(priors)));
        count = priors[0];
    }
    for (const size_t port : {kFeatureMap, kImage}) {
        const PartialShape& s = ctx.shape(port);
        if (s.rank_known() && s.rank() != 4)
            throw ctx.input_error(port, ErrorKind::ShapeRule, "rank-invalid",
                                  str(ctx.def().input_role(port), " must be 4-D [N, C, H, W], got ", to_string(s)));
    }
    const PartialShape& map = ctx.shape(kFeatureMap);
    int64_t height = kDynamic, width = kDynamic;
    if (map.rank_known()) {
        height = map[2];
        width = map[3];
        if (height != kDynamic && a.h > height)
            throw ctx.input_error(kFeatureMap, ErrorKind::Attribute, "attribute-invalid",
                                  str("attribute 'h' = ", a.h, " is larger than featmap_height ", height, " (allowed [0, ",
                                      height, "])"));
        if (width != kDynamic && a.w > width)
            throw ctx.input_error(kFeatureMap, ErrorKind::Attribute, "attribute-invalid",
                                  str("attribute 'w' = ", a.w, " is larger than featmap_width ", width, " (allowed [0, ",
                                      width, "])"));
    }
    if (a.flatten) return {{type, PartialShape({multiply(multiply(height, width), count), 4})}};
    return {{type, PartialShape({height, width, count, 4})}};
}

struct PriorGridPlan : OpPlan {
    int64_t priors = 0, rows = 0, cols = 0, total_rows = 0;
    double step_x = 0, step_y = 0;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);
    const auto& a = ctx.attrs<PriorGridAttrs>();
    const PartialShape& map = ctx.shape(kFeatureMap);
    const PartialShape& image = ctx.shape(kImage);
    auto plan = std::make_unique<PriorGridPlan>();
    plan->priors = ctx.shape(kPriors)[0];
    plan->rows = a.h != 0 ? a.h : map[2];
    plan->cols = a.w != 0 ? a.w : map[3];
    plan->total_rows = map[2] * map[3] * plan->priors;
    plan->step_x = a.stride_x != 0 ? a.stride_x
                                   : plan->cols > 0 ? static_cast<double>(image[3]) / static_cast<double>(plan->cols) : 0.0;
    plan->step_y = a.stride_y != 0 ? a.stride_y
                                   : plan->rows > 0 ? static_cast<double>(image[2]) / static_cast<double>(plan->rows) : 0.0;
    plan->method = "grid";
    return plan;
}

template <class T>
T from_double(double v) {
    if constexpr (std::is_same_v<T, float16>) return float16{f32_to_f16(static_cast<float>(v))};
    else if constexpr (std::is_same_v<T, bfloat16>) return bfloat16{f32_to_bf16(static_cast<float>(v))};
    else return static_cast<T>(v);
}

template <class T>
void generate(KernelContext& ctx, const PriorGridPlan& plan) {
    const T* priors = ctx.input(kPriors).data<T>();
    T* out = ctx.output(0).data<T>();
    int64_t row = 0;
    for (int64_t i = 0; i < plan.rows; ++i) {
        const double dy = plan.step_y * (static_cast<double>(i) + 0.5);
        for (int64_t j = 0; j < plan.cols; ++j) {
            const double dx = plan.step_x * (static_cast<double>(j) + 0.5);
            for (int64_t s = 0; s < plan.priors; ++s, ++row) {
                T* o = out + row * 4;
                o[0] = from_double<T>(detail::load_double(priors, s * 4) + dx);
                o[1] = from_double<T>(detail::load_double(priors, s * 4 + 1) + dy);
                o[2] = from_double<T>(detail::load_double(priors, s * 4 + 2) + dx);
                o[3] = from_double<T>(detail::load_double(priors, s * 4 + 3) + dy);
            }
        }
    }
    for (int64_t k = row * 4; k < plan.total_rows * 4; ++k) out[k] = from_double<T>(0.0);
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<PriorGridPlan>();
    IRLITE_CHECK(ctx.output(0).num_elements() == plan.total_rows * 4 && plan.rows * plan.cols * plan.priors <= plan.total_rows,
                 ErrorKind::ShapeRule, "kernel-output-mismatch", "output disagrees with the plan");
    detail::dispatch_storable_float(ctx.input(kPriors).type(), [&](auto tag) {
        using T = decltype(tag);
        generate<T>(ctx, plan);
    });
}

}  // namespace

OpDef make_experimental_detectron_prior_grid_generator_op() {
    OpDef d;
    d.type = "ExperimentalDetectronPriorGridGenerator";
    d.version = 6;
    d.first_opset = 6;
    d.last_opset = kLatestOpset;
    d.input_roles = {"priors", "feature_map", "im_data"};
    d.min_inputs = 3;
    d.shape_only_inputs = inputs(kFeatureMap, kImage);
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
