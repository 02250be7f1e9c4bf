// Pad-1 (opset1..opset11) and Pad-12 (opset12+): extends (or, Pad-12 only, crops) a tensor at the
// start and end of each dim.
// Inputs: 0 'data' (any type), 1 'pads_begin' and 2 'pads_end' (1-D, any integer type, one value per
// data dim; value inputs), 3 'pad_value' (optional scalar of data's type; constant mode only,
// default 0).
// Attribute pad_mode: constant, edge, reflect or symmetric. Output dim d = pads_begin[d] + dim +
// pads_end[d]. Negative pads (Pad-12) remove elements; Pad-1 rejects them.
// Output coordinate o reads data coordinate i = o - pads_begin[d], and when i is outside the data:
//   constant: pad_value; edge: the nearest edge element; reflect: mirrored without repeating the
//   edge (pads must be <= dim - 1); symmetric: mirrored with the edge repeated (pads <= dim).
// Kernel: per-dim maps from output to data coordinates, then rows: the contiguous middle of each
// row is one memcpy, the padded ends element copies of 1/2/4/8 bytes. Any element type.
#include <algorithm>
#include <cstring>

#include "engine/op.hpp"
#include "kernels/detail/index_values.hpp"

namespace irlite {
namespace {

enum class PadMode { Constant, Edge, Reflect, Symmetric };

struct PadAttrs : OpAttrs {
    PadMode mode = PadMode::Constant;
    bool allow_negative = false;  // Pad-12
};

const char* mode_name(PadMode m) {
    switch (m) {
        case PadMode::Constant: return "constant";
        case PadMode::Edge: return "edge";
        case PadMode::Reflect: return "reflect";
        case PadMode::Symmetric: return "symmetric";
    }
    return "?";
}

struct Pads {
    std::vector<int64_t> begin, end;
};

// Reads and validates both pads inputs against data of static or partial `data` shape.
Pads read_pads(const InferContext& ctx) {
    const auto& a = ctx.attrs<PadAttrs>();
    const PartialShape& data = ctx.shape(0);
    Pads p{detail::read_index_values(ctx, 1), detail::read_index_values(ctx, 2)};
    for (size_t port : {1, 2}) {
        const std::vector<int64_t>& v = port == 1 ? p.begin : p.end;
        const char* role = port == 1 ? "pads_begin" : "pads_end";
        if (v.size() != data.rank())
            throw ctx.input_error(port, ErrorKind::ShapeRule, "pads-length",
                                  str(role, " has ", v.size(), " values but data ", to_string(data), " has rank ", data.rank()));
        for (size_t d = 0; d < v.size(); ++d) {
            if (v[d] < 0 && !a.allow_negative)
                throw ctx.input_error(port, ErrorKind::Value, "value-out-of-range",
                                      str(role, "[", d, "] = ", v[d], " is negative; Pad-1 pads must be >= 0 (Pad-12 crops)"));
            const int64_t dim = data[d];
            if (dim == kDynamic || v[d] <= 0) continue;
            const int64_t limit = a.mode == PadMode::Reflect ? dim - 1 : a.mode == PadMode::Symmetric ? dim : -1;
            if (a.mode == PadMode::Edge && dim == 0)
                throw ctx.input_error(port, ErrorKind::Value, "value-out-of-range",
                                      str(role, "[", d, "] = ", v[d], ": pad_mode edge cannot pad an empty dim ", d));
            if (limit >= 0 && v[d] > limit)
                throw ctx.input_error(port, ErrorKind::Value, "value-out-of-range",
                                      str(role, "[", d, "] = ", v[d], ": ", detail::value_range_message(v[d], 0, limit),
                                          " (pad_mode ", mode_name(a.mode), ", data dim ", d, " has size ", dim, ")"));
        }
    }
    return p;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const ElementType type = ctx.type(0);
    const PartialShape& data = ctx.shape(0);
    for (size_t port : {1, 2}) {
        detail::require_index_type(ctx, port, detail::IndexTypes::AnyInteger);
        const PartialShape& s = ctx.shape(port);
        if (s.rank_known() && s.rank() != 1)
            throw ctx.input_error(port, ErrorKind::ShapeRule, "rank-invalid",
                                  str(ctx.def().input_roles[port], " must be 1-D, got shape ", to_string(s)));
    }
    if (ctx.num_inputs() > 3) {
        if (ctx.type(3) != type)
            throw ctx.input_error(3, ErrorKind::Type, "type-mismatch",
                                  str("pad_value must have data's type ", to_string(type), ", got ", to_string(ctx.type(3))));
        const PartialShape& s = ctx.shape(3);
        if (s.rank_known() && s.rank() != 0 && !(s.rank() == 1 && dims_compatible(s[0], 1)))
            throw ctx.input_error(3, ErrorKind::ShapeRule, "not-scalar",
                                  str("pad_value must be a scalar, got shape ", to_string(s)));
    }
    if (!data.rank_known()) return {{type, PartialShape::dynamic_rank()}};
    if (!ctx.value(1) || !ctx.value(2)) return {{type, PartialShape::all_dynamic(data.rank())}};
    const Pads p = read_pads(ctx);
    std::vector<int64_t> dims(data.rank());
    for (size_t d = 0; d < dims.size(); ++d) {
        if (data[d] == kDynamic) {
            dims[d] = kDynamic;
            continue;
        }
        const int64_t n = p.begin[d] + data[d] + p.end[d];
        if (n < 0)
            throw ctx.input_error(2, ErrorKind::ShapeRule, "pads-crop-too-much",
                                  str("dim ", d, ": ", p.begin[d], " + ", data[d], " + ", p.end[d], " = ", n,
                                      " is negative: the pads crop more than the dim holds"));
        dims[d] = n;
    }
    return {{type, PartialShape(dims)}};
}

// The data coordinate output coordinate o reads along a dim of size n with pads_begin b, or -1
// for pad_value.
int64_t source_index(int64_t o, int64_t b, int64_t n, PadMode mode) {
    const int64_t i = o - b;
    if (i >= 0 && i < n) return i;
    switch (mode) {
        case PadMode::Constant: return -1;
        case PadMode::Edge: return i < 0 ? 0 : n - 1;
        case PadMode::Reflect: return i < 0 ? -i : 2 * (n - 1) - i;
        case PadMode::Symmetric: return i < 0 ? -i - 1 : 2 * n - 1 - i;
    }
    return -1;
}

template <size_t N>
void copy_item(std::byte* dst, const std::byte* src) {
    std::memcpy(dst, src, N);
}

void copy_element(std::byte* dst, const std::byte* src, size_t elem) {
    switch (elem) {
        case 1: return copy_item<1>(dst, src);
        case 2: return copy_item<2>(dst, src);
        case 4: return copy_item<4>(dst, src);
        default: return copy_item<8>(dst, src);
    }
}

// The walk planned once: for each output dim, the data coordinate of each output coordinate (-1:
// pad_value), and the run of the last dim that reads consecutive data. The row counter lives in
// scratch.
struct PadPlan : OpPlan {
    std::vector<std::vector<int64_t>> maps;
    std::vector<int64_t> strides;
    Shape out;
    int64_t first = 0, count = 0, row_len = 0, rows = 0;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const Pads p = read_pads(ctx);
    const PadMode mode = ctx.attrs<PadAttrs>().mode;
    const Shape data = ctx.shape(0).to_shape();
    auto plan = std::make_unique<PadPlan>();
    plan->out = infer(ctx)[0].shape.to_shape();
    plan->method = "rows";
    const size_t rank = plan->out.size();
    if (rank == 0 || checked_num_elements(plan->out) == 0) return plan;
    plan->maps.resize(rank);
    for (size_t d = 0; d < rank; ++d)
        for (int64_t o = 0; o < plan->out[d]; ++o) plan->maps[d].push_back(source_index(o, p.begin[d], data[d], mode));
    plan->strides = row_major_strides(data);
    plan->row_len = plan->out[rank - 1];
    for (int64_t o = 0; o < plan->row_len; ++o)
        if (o - p.begin[rank - 1] >= 0 && o - p.begin[rank - 1] < data[rank - 1]) {
            if (plan->count == 0) plan->first = o;
            ++plan->count;
        }
    plan->rows = checked_num_elements(plan->out) / plan->row_len;
    plan->scratch_bytes = (rank - 1) * sizeof(int64_t);
    return plan;
}

void compute(KernelContext& ctx) {
    const Tensor& data = ctx.input(0);
    Tensor& out = ctx.output(0);
    if (out.num_elements() == 0) return;
    const PadPlan& plan = ctx.plan<PadPlan>();
    const size_t rank = out.rank();
    const size_t elem = element_size(data.type());
    std::byte pad_value[8] = {};
    if (ctx.num_inputs() > 3) {
        if (ctx.input(3).num_elements() != 1)
            throw ctx.input_error(3, ErrorKind::ShapeRule, "not-scalar",
                                  str("pad_value must hold one value, got shape ", to_string(ctx.input(3).shape())));
        std::memcpy(pad_value, ctx.input(3).data(), std::min<size_t>(elem, sizeof pad_value));
    }

    if (rank == 0) {
        std::memcpy(out.data(), data.data(), elem);
        return;
    }
    const std::vector<int64_t>& last = plan.maps[rank - 1];
    const int64_t row_len = plan.row_len, first = plan.first, count = plan.count;
    const std::byte* src = data.bytes();
    std::byte* dst = out.bytes();
    auto* counter = static_cast<int64_t*>(ctx.scratch());
    std::fill(counter, counter + (rank - 1), int64_t{0});
    for (int64_t row = 0; row < plan.rows; ++row, dst += row_len * static_cast<int64_t>(elem)) {
        int64_t base = 0;  // data offset of this row, in elements; -1 when the row is all pad_value
        for (size_t d = 0; d + 1 < rank && base >= 0; ++d) {
            const int64_t i = plan.maps[d][static_cast<size_t>(counter[d])];
            base = i < 0 ? -1 : base + i * plan.strides[d];
        }
        for (int64_t o = 0; o < row_len; ++o) {
            std::byte* to = dst + o * static_cast<int64_t>(elem);
            if (base >= 0 && o == first && count > 0) {
                std::memcpy(to, src + (base + last[static_cast<size_t>(o)]) * static_cast<int64_t>(elem),
                            static_cast<size_t>(count) * elem);
                o += count - 1;
                continue;
            }
            const int64_t i = base < 0 ? -1 : last[static_cast<size_t>(o)];
            copy_element(to, i < 0 ? pad_value : src + (base + i) * static_cast<int64_t>(elem), elem);
        }
        for (size_t d = rank - 1; d-- > 0;) {
            if (++counter[d] < plan.out[d]) break;
            counter[d] = 0;
        }
    }
}

OpDef make_pad(int version, int first_opset, int last_opset) {
    OpDef d;
    d.type = "Pad";
    d.version = version;
    d.first_opset = first_opset;
    d.last_opset = last_opset;
    d.input_roles = {"data", "pads_begin", "pads_end", "pad_value"};
    d.min_inputs = 3;
    d.value_inputs = inputs(1, 2);
    d.parse_attrs = [version](const AttrReader& r) -> std::unique_ptr<OpAttrs> {
        auto a = std::make_unique<PadAttrs>();
        const std::string m = r.get_enum("pad_mode", {"constant", "edge", "reflect", "symmetric"}, "constant");
        a->mode = m == "edge" ? PadMode::Edge : m == "reflect" ? PadMode::Reflect
                  : m == "symmetric" ? PadMode::Symmetric : PadMode::Constant;
        a->allow_negative = version >= 12;
        return a;
    };
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace

OpDef make_pad_1_op() { return make_pad(1, 1, 11); }
OpDef make_pad_12_op() { return make_pad(12, 12, kLatestOpset); }

}  // namespace irlite
