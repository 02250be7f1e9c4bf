// RegionYolo-1 (opset1+): the YOLO v2 "region" and YOLO v3 "yolo" output layers, which squash the
// raw detection channels (the box decoding with anchors is left to post-processing).
// Input 0 'data': [N, C, H, W] of f16, bf16, f32 or f64 (f16/bf16 computed in f32). Output: the
// same type.
// Attributes: coords, classes, num (required, >= 0; coords >= 2), do_softmax (default true), mask
// (default []), axis and end_axis (required, in [-4, 3]), anchors (default []; not used here).
// Each region's channels are K = coords + classes + 1, in the order x, y, the other coords
// (w, h, ...), the objectness, then the classes; regions = num with do_softmax, len(mask)
// without (mask only selects which anchors the layer has: its values are not used here).
// Every batch must have C >= regions * K channels. Per batch, per region, per location:
//   - x and y (channels 0 and 1) and the objectness (channel coords): sigmoid;
//   - the other coords (channels 2 .. coords-1): unchanged;
//   - the classes: do_softmax: softmax across the classes (exp(x - max) / sum);
//                  otherwise: sigmoid of each.
// Output shape: do_softmax: the input's elements in their order (channels past regions * K of a
// batch copied unchanged), with dims axis .. end_axis flattened into one ([1, 125, 13, 13] with
// axis 1, end_axis 3 -> [1, 21125]; end_axis < axis flattens nothing, as OpenVINO's rule does);
// otherwise [N, regions * K, H, W]: channels past regions * K are dropped (OpenVINO's reference
// test has C = 8 for K = 6).
// Decisions: coords < 2 is refused (OpenVINO would apply the sigmoid twice to the channels that x
// and y share with the objectness or the classes). For N > 1 each batch is read at its own
// offset, C * H * W apart (OpenVINO's reference kernel steps batches by regions * K * H * W,
// which is the same whenever C = regions * K, the case of every real model).
#include <algorithm>
#include <cmath>

#include "engine/op.hpp"
#include "kernels/detail/float_value.hpp"
#include "kernels/detail/nn_common.hpp"
#include "kernels/detail/parallel.hpp"

namespace irlite {
namespace {

struct RegionYoloAttrs : OpAttrs {
    int64_t coords = 4, classes = 0, num = 0;
    bool do_softmax = true;
    std::vector<int64_t> mask;
    int64_t axis = 1, end_axis = 3;
    std::vector<double> anchors;

    int64_t regions() const { return do_softmax ? num : static_cast<int64_t>(mask.size()); }
    int64_t per_region() const { return coords + classes + 1; }
};

constexpr int64_t kRank = 4;
constexpr int64_t kAttrLimit = int64_t{1} << 31;  // keeps regions * K * H * W arithmetic far from overflow

int64_t count_attr(const AttrReader& r, const char* name, int64_t lowest) {
    const int64_t v = r.get_i64(name);
    if (v < lowest || v >= kAttrLimit)
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute '", name, "' = ", v, ": must be in [", lowest, ", ", kAttrLimit - 1, "]",
                        std::string(name) == "coords" ? " (x and y are coordinates 0 and 1)" : ""));
    return v;
}

int64_t axis_attr(const AttrReader& r, const char* name) {
    const int64_t v = r.get_i64(name);
    if (v < -kRank || v >= kRank)
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute '", name, "' = ", v, ": must be in [-4, 3] (data has rank 4)"));
    return v < 0 ? v + kRank : v;
}

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<RegionYoloAttrs>();
    a->coords = count_attr(r, "coords", 2);
    a->classes = count_attr(r, "classes", 0);
    a->num = count_attr(r, "num", 0);
    a->do_softmax = r.get_bool("do_softmax", true);
    a->mask = r.get_i64_list("mask", {});
    if (static_cast<int64_t>(a->mask.size()) >= kAttrLimit)
        throw Error(ErrorKind::Attribute, "attribute-invalid", "attribute 'mask' has too many values");
    a->axis = axis_attr(r, "axis");
    a->end_axis = axis_attr(r, "end_axis");
    a->anchors = r.has("anchors") ? r.get_f64_list("anchors") : std::vector<double>{};
    return a;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    nn::require_float(ctx, 0);
    nn::require_rank(ctx, 0, kRank, kRank, "[N, C, H, W]");
    const auto& a = ctx.attrs<RegionYoloAttrs>();
    const PartialShape data = ctx.shape(0).rank_known() ? ctx.shape(0) : PartialShape::all_dynamic(kRank);
    const int64_t needed = a.regions() * a.per_region();  // < 2^63: both factors are < 2^32
    if (data[1] != kDynamic && data[1] < needed)
        throw ctx.input_error(0, ErrorKind::ShapeRule, "shape-invalid",
                              str("data has ", data[1], " channels; ", a.regions(), a.do_softmax ? " regions (num)" : " regions (mask)",
                                  " of coords + classes + 1 = ", a.per_region(), " channels need ", needed));
    if (!a.do_softmax) return {{ctx.type(0), PartialShape({data[0], needed, data[2], data[3]})}};
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < kRank; ++d) {
        const int64_t v = data[static_cast<size_t>(d)];
        if (d <= a.axis || d > a.end_axis) {
            dims.push_back(v);
            continue;
        }
        int64_t& flat = dims.back();
        if (flat == 0 || v == 0) flat = 0;
        else if (flat == kDynamic || v == kDynamic) flat = kDynamic;
        else if (__builtin_mul_overflow(flat, v, &flat))
            throw ctx.input_error(0, ErrorKind::Limit, "shape-overflow", "the flattened dim overflows int64");
    }
    return {{ctx.type(0), PartialShape(dims)}};
}

// Storage type T seen as compute type C (float for f16/bf16/f32, double for f64).
template <class T>
struct FloatIo {
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    static C load(T v) { return detail::load_as<C>(v); }
    static T store(C v) { return detail::store_as<T>(v); }
};

template <class T>
void sigmoid(const T* x, T* y, int64_t n) {
    using Io = FloatIo<T>;
    using C = typename Io::C;
    for (int64_t i = 0; i < n; ++i) y[i] = Io::store(C(1) / (C(1) + std::exp(-Io::load(x[i]))));
}

// Softmax across `channels` rows of `area` elements (row stride `area`), for each column.
template <class T>
void softmax_columns(const T* x, T* y, int64_t channels, int64_t area) {
    using Io = FloatIo<T>;
    using C = typename Io::C;
    for (int64_t p = 0; p < area; ++p) {
        C max = Io::load(x[p]);
        for (int64_t c = 1; c < channels; ++c) max = std::max(max, Io::load(x[c * area + p]));
        C sum = 0;
        for (int64_t c = 0; c < channels; ++c) sum += std::exp(Io::load(x[c * area + p]) - max);
        for (int64_t c = 0; c < channels; ++c) y[c * area + p] = Io::store(std::exp(Io::load(x[c * area + p]) - max) / sum);
    }
}

// One region of one batch: K channels of `area` elements.
template <class T>
void region(const T* x, T* y, const RegionYoloAttrs& a, int64_t area) {
    sigmoid(x, y, 2 * area);
    std::copy(x + 2 * area, x + a.coords * area, y + 2 * area);
    sigmoid(x + a.coords * area, y + a.coords * area, area);
    const int64_t first_class = (a.coords + 1) * area;
    if (a.classes == 0) return;
    if (a.do_softmax) softmax_columns(x + first_class, y + first_class, a.classes, area);
    else sigmoid(x + first_class, y + first_class, a.classes * area);
}

// Per image: `regions` blocks of k channels of `area` positions each, then (do_softmax only) the
// channels past them, copied.
struct RegionYoloPlan : OpPlan {
    int64_t n = 0, area = 0, regions = 0, k = 0, in_batch = 0, out_batch = 0;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const auto& a = ctx.attrs<RegionYoloAttrs>();
    const PartialShape& s = ctx.shape(0);
    auto plan = std::make_unique<RegionYoloPlan>();
    plan->method = a.do_softmax ? "softmax" : "sigmoid";
    plan->n = s[0], plan->area = s[2] * s[3];
    plan->regions = a.regions(), plan->k = a.per_region();
    const int64_t c = s[1];
    IRLITE_CHECK(c >= plan->regions * plan->k, ErrorKind::ShapeRule, "shape-invalid", "data has ", c, " channels; ",
                 plan->regions * plan->k, " needed");
    plan->in_batch = c * plan->area;
    plan->out_batch = a.do_softmax ? plan->in_batch : plan->regions * plan->k * plan->area;
    return plan;
}

void compute(KernelContext& ctx) {
    const auto& a = ctx.attrs<RegionYoloAttrs>();
    const auto& p = ctx.plan<RegionYoloPlan>();
    const Tensor& in = ctx.input(0);
    Tensor& out = ctx.output(0);
    const int64_t regions = p.regions, k = p.k, area = p.area, in_batch = p.in_batch, out_batch = p.out_batch;
    IRLITE_CHECK(out.num_elements() == p.n * out_batch, ErrorKind::ShapeRule, "kernel-output-mismatch", "output shape ",
                 to_string(out.shape()), " disagrees with the input ", to_string(in.shape()));
    if (out.num_elements() == 0) return;
    dispatch_type(in.type(), [&](auto tag) {
        using T = decltype(tag);
        // The rule admits the float types only.
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, float16> ||
                      std::is_same_v<T, bfloat16>) {
            const T* x = in.data<T>();
            T* y = out.data<T>();
            const int64_t units = p.n * regions;
            const int64_t grain = std::max<int64_t>(1, detail::kCopyGrainBytes / std::max<int64_t>(1, k * area * 8));
            detail::for_chunks(ctx.pool(), units, grain, [&](int64_t begin, int64_t end) {
                for (int64_t u = begin; u < end; ++u) {
                    const int64_t b = u / std::max<int64_t>(regions, 1), r = u % std::max<int64_t>(regions, 1);
                    region(x + b * in_batch + r * k * area, y + b * out_batch + r * k * area, a, area);
                }
            });
            // Channels past the regions' (do_softmax only: otherwise the output has none).
            const int64_t tail = out_batch - regions * k * area;
            if (tail > 0)
                for (int64_t b = 0; b < p.n; ++b)
                    std::copy(x + b * in_batch + regions * k * area, x + (b + 1) * in_batch, y + b * out_batch + regions * k * area);
        }
    });
}

}  // namespace

OpDef make_region_yolo_op() {
    OpDef d;
    d.type = "RegionYolo";
    d.version = 1;
    d.input_roles = {"data"};
    d.min_inputs = 1;
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
