// DepthToSpace-1 and SpaceToDepth-1 (opset1+): blocks of the channel dim moved into the spatial
// dims and back. Input 'data' of any type and rank r = K + 2 >= 3 ([N, C, D1, ..., DK]).
// Attributes: mode = blocks_first | depth_first (required), block_size (default 1, >= 1).
//   DepthToSpace: [N, C*bs^K, D1..DK] -> [N, C, D1*bs, ..., DK*bs]; the input channel is read as
//     [bs, ..., bs, C] (blocks_first) or [C, bs, ..., bs] (depth_first), and block index k goes
//     next to spatial dim k.
//   SpaceToDepth: the inverse: [N, C, D1*bs, ..., DK*bs] -> [N, C*bs^K, D1..DK], the output channel
//     written as [bs, ..., bs, C] (blocks_first) or [C, bs, ..., bs] (depth_first).
// Both are a transpose of a reshaped view, so the kernel is one prepared strided byte copy (every
// element type), split across the thread pool.
#include "engine/op.hpp"
#include "kernels/detail/strided_copy.hpp"

namespace irlite {
namespace {

enum class Mode { BlocksFirst, DepthFirst };

struct DepthSpaceAttrs : OpAttrs {
    Mode mode = Mode::BlocksFirst;
    int64_t block = 1;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<DepthSpaceAttrs>();
    r.get_string("mode");  // required: throws when absent
    a->mode = r.get_enum("mode", {"blocks_first", "depth_first"}, "") == "blocks_first" ? Mode::BlocksFirst : Mode::DepthFirst;
    a->block = r.get_i64("block_size", 1);
    if (a->block < 1)
        throw Error(ErrorKind::Attribute, "attribute-invalid", str("attribute 'block_size' = ", a->block, ": must be >= 1"));
    return a;
}

// bs^k, or -1 when it overflows int64.
int64_t power(int64_t bs, size_t k) {
    int64_t p = 1;
    for (size_t i = 0; i < k; ++i)
        if (__builtin_mul_overflow(p, bs, &p)) return -1;
    return p;
}

void check_rank(const InferContext& ctx, const PartialShape& data) {
    if (data.rank_known() && data.rank() < 3)
        throw ctx.input_error(0, ErrorKind::ShapeRule, "rank-invalid",
                              str("data must have rank >= 3 ([N, C, D1, ...]), got shape ", to_string(data)));
}

std::vector<OutputInfo> infer_d2s(const InferContext& ctx) {
    const PartialShape& data = ctx.shape(0);
    check_rank(ctx, data);
    if (!data.rank_known()) return {{ctx.type(0), data}};
    const int64_t bs = ctx.attrs<DepthSpaceAttrs>().block;
    const size_t k = data.rank() - 2;
    const int64_t blocks = power(bs, k);
    std::vector<int64_t> dims = data.dims();
    if (dims[1] != kDynamic) {
        if (blocks < 0 || dims[1] % blocks != 0)
            throw ctx.input_error(0, ErrorKind::ShapeRule, "shape-invalid",
                                  str("channels ", dims[1], " not divisible by block_size^", k, " = ",
                                      blocks < 0 ? std::string("(overflow)") : str(blocks), " (block_size ", bs, ")"));
        dims[1] /= blocks;
    }
    for (size_t d = 2; d < dims.size(); ++d)
        if (dims[d] != kDynamic && __builtin_mul_overflow(dims[d], bs, &dims[d]))
            throw ctx.input_error(0, ErrorKind::Limit, "shape-overflow", "the output dims overflow int64");
    return {{ctx.type(0), PartialShape(dims)}};
}

std::vector<OutputInfo> infer_s2d(const InferContext& ctx) {
    const PartialShape& data = ctx.shape(0);
    check_rank(ctx, data);
    if (!data.rank_known()) return {{ctx.type(0), data}};
    const int64_t bs = ctx.attrs<DepthSpaceAttrs>().block;
    const size_t k = data.rank() - 2;
    const int64_t blocks = power(bs, k);
    std::vector<int64_t> dims = data.dims();
    for (size_t d = 2; d < dims.size(); ++d)
        if (dims[d] != kDynamic) {
            if (dims[d] % bs != 0)
                throw ctx.input_error(0, ErrorKind::ShapeRule, "shape-invalid",
                                      str("spatial dim ", dims[d], " (dim ", d, ") not divisible by block_size ", bs));
            dims[d] /= bs;
        }
    if (dims[1] != kDynamic && (blocks < 0 || __builtin_mul_overflow(dims[1], blocks, &dims[1])))
        throw ctx.input_error(0, ErrorKind::Limit, "shape-overflow", "the output channel dim overflows int64");
    return {{ctx.type(0), PartialShape(dims)}};
}

struct DepthSpacePlan : OpPlan {
    detail::CopyPlan copy;
};

// The output seen as an expanded view whose row-major order is the output's, with the input byte
// stride of each of its dims.
std::unique_ptr<OpPlan> prepare(const InferContext& ctx, bool to_space) {
    const Shape in = ctx.shape(0).dims();
    const auto& a = ctx.attrs<DepthSpaceAttrs>();
    const int64_t bs = a.block;
    const size_t k = in.size() - 2;
    const auto elem = static_cast<int64_t>(element_size(ctx.type(0)));
    const std::vector<int64_t> stride = row_major_strides(in);  // elements
    Shape view;
    std::vector<int64_t> bytes;
    const auto add = [&](int64_t count, int64_t elements) {
        view.push_back(count);
        bytes.push_back(elements * elem);
    };
    if (to_space) {
        // Output [N, C', D1, bs, ..., DK, bs]; input channel = [bs..bs, C'] or [C', bs..bs].
        const int64_t c_out = in[1] / power(bs, k);
        add(in[0], stride[0]);
        const int64_t c_stride = a.mode == Mode::BlocksFirst ? stride[1] : stride[1] * power(bs, k);
        add(c_out, c_stride);
        for (size_t d = 0; d < k; ++d) {
            add(in[2 + d], stride[2 + d]);
            const int64_t below = power(bs, k - 1 - d);  // blocks of the later spatial dims
            add(bs, a.mode == Mode::BlocksFirst ? below * c_out * stride[1] : below * stride[1]);
        }
    } else {
        // Output channel = [bs..bs, C] or [C, bs..bs]; output spatial dim d = input dim / bs.
        const auto block_dims = [&] {
            for (size_t d = 0; d < k; ++d) add(bs, stride[2 + d]);
        };
        add(in[0], stride[0]);
        if (a.mode == Mode::BlocksFirst) block_dims();
        add(in[1], stride[1]);
        if (a.mode == Mode::DepthFirst) block_dims();
        for (size_t d = 0; d < k; ++d) add(in[2 + d] / bs, bs * stride[2 + d]);
    }
    auto plan = std::make_unique<DepthSpacePlan>();
    plan->copy = detail::plan_view_copy(checked_byte_size(in, static_cast<size_t>(elem)), 0, view, bytes,
                                        static_cast<size_t>(elem));
    plan->method = "strided-copy";
    return plan;
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<DepthSpacePlan>();
    const Tensor& in = ctx.input(0);
    Tensor& out = ctx.output(0);
    IRLITE_CHECK(static_cast<int64_t>(out.byte_size()) == plan.copy.total_bytes(), ErrorKind::ShapeRule,
                 "kernel-output-mismatch", "output shape ", to_string(out.shape()), " disagrees with the plan");
    detail::run_copy(plan.copy, in.data(), out.data(), ctx.pool());
}

OpDef make_def(const char* type, bool to_space) {
    OpDef d;
    d.type = type;
    d.version = 1;
    d.input_roles = {"data"};
    d.min_inputs = 1;
    d.parse_attrs = parse;
    d.infer = to_space ? infer_d2s : infer_s2d;
    if (to_space) d.prepare = [](const InferContext& ctx) { return prepare(ctx, true); };
    else d.prepare = [](const InferContext& ctx) { return prepare(ctx, false); };
    d.compute = compute;
    return d;
}

}  // namespace

OpDef make_depth_to_space_op() { return make_def("DepthToSpace", true); }
OpDef make_space_to_depth_op() { return make_def("SpaceToDepth", false); }

}  // namespace irlite
