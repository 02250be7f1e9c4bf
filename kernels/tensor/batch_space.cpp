// BatchToSpace-2 and SpaceToBatch-2 (opset2+): blocks of the batch dim moved into the spatial dims
// and back. Inputs: 0 'data' (any type, rank r >= 2: [batch, D1, ..., Dk], k = r - 1) and three
// 1-D inputs of r values each, of one integer type (any integer type; OpenVINO requires the three
// to share it), needed by the shape rule (value inputs, usually Const):
//   BatchToSpace: 1 'block_shape' (>= 1), 2 'crops_begin', 3 'crops_end' (>= 0).
//     The input batch is read as [B1, ..., Bk, batch / (B1 * ... * Bk)]; output dim i is
//     Di * Bi - crops_begin[i] - crops_end[i]. Output element (n, y1, ..., yk) with xi = yi +
//     crops_begin[i] reads input batch ((x1 % B1) * B2 + x2 % B2 ...) * (batch / prod B) + n at
//     spatial (x1 / B1, ..., xk / Bk).
//   SpaceToBatch: 1 'block_shape' (>= 1), 2 'pads_begin', 3 'pads_end' (>= 0).
//     The data is zero-padded, then output batch ((o1 * B2 + o2) ...) * batch + n holds, at
//     spatial (y1, ..., yk), padded element (n, y1 * B1 + o1, ..., yk * Bk + ok): output dim i is
//     (Di + pads_begin[i] + pads_end[i]) / Bi, which must divide exactly. Padding is zero bytes
//     (0, 0.0 or false in every element type).
// The spec says block_shape[0] "is expected to be 1" and the batch crops/pads to be 0; irlite
// requires it (OpenVINO's own rules disagree on what another value would mean). The crops of a
// dim may not exceed Di * Bi. Unknown values (a non-Const input) give dynamic dims.
// Kernel: every source offset is a sum of one term per output dim (the batch term, then per-dim
// tables built once in prepare, one table per block offset for SpaceToBatch), so each output row
// is a few runs: memcpy where the last dim reads consecutive elements, zeros for padding, single
// elements otherwise. Bytes only, every element type; rows split across the thread pool.
#include <algorithm>
#include <cstring>

#include "engine/op.hpp"
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/parallel.hpp"
#include "kernels/detail/small_buffer.hpp"

namespace irlite {
namespace {

struct BatchSpaceAttrs : OpAttrs {
    bool to_batch = false;  // SpaceToBatch
};

const char* begin_role(bool to_batch) { return to_batch ? "pads_begin" : "crops_begin"; }
const char* end_role(bool to_batch) { return to_batch ? "pads_end" : "crops_end"; }

struct Blocks {
    std::vector<int64_t> block, begin, end;
};

// Reads the three value inputs and checks them against data's rank (known) and, where known, its
// dims. Used by the shape rule and by prepare.
Blocks read_blocks(const InferContext& ctx, bool to_batch) {
    const PartialShape& data = ctx.shape(0);
    Blocks b{detail::read_index_values(ctx, 1), detail::read_index_values(ctx, 2), detail::read_index_values(ctx, 3)};
    for (size_t port = 1; port <= 3; ++port) {
        const std::vector<int64_t>& v = port == 1 ? b.block : port == 2 ? b.begin : b.end;
        const std::string role = ctx.def().input_role(port);
        if (v.size() != data.rank())
            throw ctx.input_error(port, ErrorKind::ShapeRule, "length-mismatch",
                                  str(role, " has ", v.size(), " values but data ", to_string(data), " has rank ",
                                      data.rank(), ": one value per data dim"));
        const int64_t lowest = port == 1 ? 1 : 0;
        for (size_t d = 0; d < v.size(); ++d)
            if (v[d] < lowest)
                throw ctx.input_error(port, ErrorKind::Value, "value-out-of-range",
                                      str(role, "[", d, "] = ", v[d], ": ", role, " values must be >= ", lowest));
        const int64_t batch_value = port == 1 ? 1 : 0;
        if (v[0] != batch_value)
            throw ctx.input_error(port, ErrorKind::Value, "value-out-of-range",
                                  str(role, "[0] = ", v[0], ": the batch dim's ", port == 1 ? "block" : "value",
                                      " must be ", batch_value));
    }
    for (size_t d = 1; d < data.rank(); ++d) {
        if (data[d] == kDynamic) continue;
        int64_t sum = 0;
        if (__builtin_add_overflow(b.begin[d], b.end[d], &sum))
            throw ctx.input_error(3, ErrorKind::Limit, "size-overflow", str("dim ", d, ": the ", to_batch ? "pads" : "crops", " overflow int64"));
        if (to_batch) {
            int64_t padded = 0;
            if (__builtin_add_overflow(data[d], sum, &padded))
                throw ctx.input_error(3, ErrorKind::Limit, "size-overflow", str("dim ", d, ": the padded size overflows int64"));
            if (padded % b.block[d] != 0)
                throw ctx.input_error(1, ErrorKind::ShapeRule, "shape-invalid",
                                      str("dim ", d, ": padded size ", data[d], " + ", b.begin[d], " + ", b.end[d], " = ",
                                          padded, " is not divisible by block_shape[", d, "] = ", b.block[d]));
        } else {
            int64_t full = 0;
            if (__builtin_mul_overflow(data[d], b.block[d], &full))
                throw ctx.input_error(1, ErrorKind::Limit, "size-overflow", str("dim ", d, ": ", data[d], " x block ", b.block[d], " overflows int64"));
            if (sum > full)
                throw ctx.input_error(3, ErrorKind::ShapeRule, "shape-invalid",
                                      str("dim ", d, ": crops_begin[", d, "] + crops_end[", d, "] = ", b.begin[d], " + ",
                                          b.end[d], " = ", sum, " is larger than data dim ", data[d], " x block_shape[", d,
                                          "] ", b.block[d], " = ", full));
        }
    }
    return b;
}

// Product of block_shape, or -1 when it overflows int64.
int64_t block_product(const std::vector<int64_t>& block) {
    int64_t p = 1;
    for (int64_t b : block)
        if (__builtin_mul_overflow(p, b, &p)) return -1;
    return p;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const bool to_batch = ctx.attrs<BatchSpaceAttrs>().to_batch;
    const ElementType type = ctx.type(0);
    const PartialShape& data = ctx.shape(0);
    int64_t length = kDynamic;  // the values' count, when some input's shape says it
    for (size_t port = 1; port <= 3; ++port) {
        detail::require_index_type(ctx, port, detail::IndexTypes::AnyInteger);
        if (ctx.type(port) != ctx.type(1))
            throw ctx.input_error(port, ErrorKind::Type, "element-type-mismatch",
                                  str("block_shape, ", begin_role(to_batch), " and ", end_role(to_batch),
                                      " must have one element type: ", ctx.def().input_role(port), " is ",
                                      to_string(ctx.type(port)), ", block_shape ", to_string(ctx.type(1))));
        const PartialShape& s = ctx.shape(port);
        if (!s.rank_known()) continue;
        if (s.rank() != 1)
            throw ctx.input_error(port, ErrorKind::ShapeRule, "rank-invalid",
                                  str(ctx.def().input_role(port), " must be 1-D, got shape ", to_string(s)));
        if (s[0] == kDynamic) continue;
        if (length != kDynamic && s[0] != length)
            throw ctx.input_error(port, ErrorKind::ShapeRule, "shape-mismatch",
                                  str("block_shape, ", begin_role(to_batch), " and ", end_role(to_batch),
                                      " must have the same length: ", ctx.def().input_role(port), " has ", s[0],
                                      " values, an earlier one ", length));
        if (data.rank_known() && s[0] != static_cast<int64_t>(data.rank()))
            throw ctx.input_error(port, ErrorKind::ShapeRule, "length-mismatch",
                                  str(ctx.def().input_role(port), " has ", s[0], " values but data ", to_string(data),
                                      " has rank ", data.rank(), ": one value per data dim"));
        length = s[0];
    }
    if (data.rank_known() && data.rank() < 2)
        throw ctx.input_error(0, ErrorKind::ShapeRule, "rank-invalid",
                              str("data must have rank >= 2 ([batch, D1, ...]), got shape ", to_string(data)));
    if (!data.rank_known()) {
        if (length == kDynamic) return {{type, PartialShape::dynamic_rank()}};
        if (length < 2)
            throw ctx.input_error(1, ErrorKind::ShapeRule, "rank-invalid",
                                  str("block_shape has ", length, " values: data must have rank >= 2 ([batch, D1, ...])"));
        return {{type, PartialShape::all_dynamic(static_cast<size_t>(length))}};
    }
    if (!ctx.value(1) || !ctx.value(2) || !ctx.value(3)) return {{type, PartialShape::all_dynamic(data.rank())}};

    const Blocks b = read_blocks(ctx, to_batch);
    const int64_t product = block_product(b.block);
    std::vector<int64_t> dims(data.rank(), kDynamic);
    if (data[0] != kDynamic) {
        if (to_batch) {
            if (product < 0 || __builtin_mul_overflow(data[0], product, &dims[0]))
                throw ctx.input_error(1, ErrorKind::Limit, "size-overflow",
                                      str("batch ", data[0], " x the product of block_shape overflows int64"));
        } else {
            if (product < 0 || data[0] % product != 0)
                throw ctx.input_error(0, ErrorKind::ShapeRule, "shape-invalid",
                                      str("batch ", data[0], " is not divisible by the product of block_shape ",
                                          product < 0 ? std::string("(overflow)") : str(product)));
            dims[0] = data[0] / product;
        }
    }
    for (size_t d = 1; d < dims.size(); ++d) {
        if (data[d] == kDynamic) continue;
        // read_blocks has checked divisibility, crops and overflow for known dims.
        dims[d] = to_batch ? (data[d] + b.begin[d] + b.end[d]) / b.block[d] : data[d] * b.block[d] - b.begin[d] - b.end[d];
    }
    return {{type, PartialShape(dims)}};
}

// ---- plan and kernel ---------------------------------------------------------------------------

// Source byte offset of output element (c0, c1, ..., ck) =
//   (c0 % batch_mod) * batch_stride + table[1][v1 * out[1] + c1] + ... + table[k][vk * out[k] + ck]
// SpaceToBatch: output batch c0 is (o1, ..., ok, n) over (B1, ..., Bk, batch), so n = c0 % batch
// and vi = oi, the block offset along dim i, selects the table. BatchToSpace: n = c0 and vi = 0.
// A table entry of -1 is padding (zeros). The last dim is kept as runs.
struct BatchSpacePlan : OpPlan {
    struct Run {
        int64_t start, count;  // output elements [start, start + count) of the row
        int64_t src;           // byte offset of the first one, relative to the row's base; -1: zeros
    };
    Shape out;
    int64_t elem = 0;
    bool to_batch = false;
    int64_t batch_mod = 1, batch_stride = 0;  // the input batch and its byte stride
    std::vector<int64_t> block, below;        // SpaceToBatch: oi = c0 / batch_mod / below[i] % block[i]
    std::vector<std::vector<int64_t>> table;  // per output dim; table[0] unused
    std::vector<std::vector<Run>> runs;       // per variant of the last dim
};

// The last dim's table of one variant as runs of consecutive source elements or of padding.
std::vector<BatchSpacePlan::Run> make_runs(const int64_t* table, int64_t n, int64_t elem) {
    std::vector<BatchSpacePlan::Run> runs;
    for (int64_t y = 0; y < n;) {
        BatchSpacePlan::Run r{y, 1, table[y]};
        while (y + r.count < n && (r.src < 0 ? table[y + r.count] < 0 : table[y + r.count] == r.src + r.count * elem))
            ++r.count;
        y += r.count;
        runs.push_back(r);
    }
    return runs;
}

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const bool to_batch = ctx.attrs<BatchSpaceAttrs>().to_batch;
    const Shape in = ctx.shape(0).dims();
    const Blocks b = read_blocks(ctx, to_batch);
    const Shape out = infer(ctx)[0].shape.dims();
    const size_t rank = in.size(), k = rank - 1;
    auto plan = std::make_unique<BatchSpacePlan>();
    plan->out = out;
    plan->elem = static_cast<int64_t>(element_size(ctx.type(0)));
    plan->to_batch = to_batch;
    plan->method = "gather-runs";
    // An empty output needs no tables (they could be as large as a padded dim).
    if (checked_num_elements(out) == 0) return plan;
    const int64_t elem = plan->elem;
    const std::vector<int64_t> stride = row_major_strides(in);
    // below[i]: product of block_shape[i+1 ..], the weight of block offset i in the blocked batch.
    std::vector<int64_t> below(rank, 1);
    for (size_t i = rank - 1; i-- > 0;) below[i] = below[i + 1] * b.block[i + 1];
    plan->batch_mod = to_batch ? in[0] : out[0];
    plan->batch_stride = stride[0] * elem;
    plan->block = b.block;
    plan->below = below;
    plan->table.resize(rank);
    for (size_t i = 1; i < rank; ++i) {
        std::vector<int64_t>& t = plan->table[i];
        if (to_batch) {
            // Output spatial y of block offset o reads padded y * Bi + o.
            t.resize(static_cast<size_t>(b.block[i] * out[i]));
            for (int64_t o = 0; o < b.block[i]; ++o)
                for (int64_t y = 0; y < out[i]; ++y) {
                    const int64_t x = y * b.block[i] + o - b.begin[i];
                    t[static_cast<size_t>(o * out[i] + y)] = x >= 0 && x < in[i] ? x * stride[i] * elem : -1;
                }
        } else {
            // Output spatial y reads x = y + crops_begin: block offset x % Bi (a term of the input
            // batch (o1, ..., ok, n)), spatial x / Bi.
            t.resize(static_cast<size_t>(out[i]));
            for (int64_t y = 0; y < out[i]; ++y) {
                const int64_t x = y + b.begin[i];
                t[static_cast<size_t>(y)] =
                    ((x % b.block[i]) * below[i] * out[0] * stride[0] + (x / b.block[i]) * stride[i]) * elem;
            }
        }
    }
    const int64_t last_variants = to_batch ? b.block[k] : 1;
    for (int64_t v = 0; v < last_variants; ++v)
        plan->runs.push_back(make_runs(plan->table[k].data() + v * out[k], out[k], elem));
    return plan;
}

void copy_run(std::byte* dst, const std::byte* src, int64_t bytes) {
    switch (bytes) {
        case 1: std::memcpy(dst, src, 1); return;
        case 2: std::memcpy(dst, src, 2); return;
        case 4: std::memcpy(dst, src, 4); return;
        case 8: std::memcpy(dst, src, 8); return;
        default: std::memcpy(dst, src, static_cast<size_t>(bytes));
    }
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<BatchSpacePlan>();
    const Tensor& in = ctx.input(0);
    Tensor& out = ctx.output(0);
    IRLITE_CHECK(out.shape() == plan.out, ErrorKind::ShapeRule, "kernel-output-mismatch", "output shape ",
                 to_string(out.shape()), " disagrees with the plan ", to_string(plan.out));
    if (out.num_elements() == 0) return;
    const size_t rank = plan.out.size(), k = rank - 1;
    const int64_t row_len = plan.out[k];
    const int64_t row_bytes = row_len * plan.elem;
    const int64_t rows = out.num_elements() / row_len;
    const std::byte* src = in.bytes();
    std::byte* dst = out.bytes();
    const int64_t grain = std::max<int64_t>(1, detail::kCopyGrainBytes / row_bytes);
    detail::for_chunks(ctx.pool(), rows, grain, [&](int64_t begin, int64_t end) {
        // The row's coordinates over out[0 .. k-1], an odometer started at `begin`, and the
        // variants (block offsets) of its output batch, recomputed when that batch changes.
        detail::SmallBuffer<int64_t> coord(k), variant(rank);
        for (size_t d = k, r = static_cast<size_t>(begin); d-- > 0;) {
            coord[d] = static_cast<int64_t>(r % static_cast<size_t>(plan.out[d]));
            r /= static_cast<size_t>(plan.out[d]);
        }
        int64_t batch = -1, batch_base = 0;
        for (int64_t row = begin; row < end; ++row) {
            if (coord[0] != batch) {
                batch = coord[0];
                batch_base = (batch % plan.batch_mod) * plan.batch_stride;
                for (size_t i = 1; i < rank; ++i)
                    variant[i] = plan.to_batch ? batch / plan.batch_mod / plan.below[i] % plan.block[i] : 0;
            }
            int64_t base = batch_base;
            for (size_t d = 1; d < k && base >= 0; ++d) {
                const int64_t t = plan.table[d][static_cast<size_t>(variant[d] * plan.out[d] + coord[d])];
                base = t < 0 ? -1 : base + t;
            }
            std::byte* row_dst = dst + row * row_bytes;
            if (base < 0) {
                std::memset(row_dst, 0, static_cast<size_t>(row_bytes));
            } else {
                for (const BatchSpacePlan::Run& r : plan.runs[static_cast<size_t>(variant[k])]) {
                    std::byte* to = row_dst + r.start * plan.elem;
                    if (r.src < 0) std::memset(to, 0, static_cast<size_t>(r.count * plan.elem));
                    else copy_run(to, src + base + r.src, r.count * plan.elem);
                }
            }
            for (size_t d = k; d-- > 0;) {
                if (++coord[d] < plan.out[d]) break;
                coord[d] = 0;
            }
        }
    });
}

OpDef make_def(const char* type, bool to_batch) {
    OpDef d;
    d.type = type;
    d.version = 2;
    d.first_opset = 2;
    d.last_opset = kLatestOpset;
    d.input_roles = {"data", "block_shape", begin_role(to_batch), end_role(to_batch)};
    d.min_inputs = 4;
    d.value_inputs = inputs(1, 2, 3);
    d.parse_attrs = [to_batch](const AttrReader&) -> std::unique_ptr<OpAttrs> {
        auto a = std::make_unique<BatchSpaceAttrs>();
        a->to_batch = to_batch;
        return a;
    };
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace

OpDef make_batch_to_space_op() { return make_def("BatchToSpace", false); }
OpDef make_space_to_batch_op() { return make_def("SpaceToBatch", true); }

}  // namespace irlite
