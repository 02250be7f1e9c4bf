// NonZero-3 (opset3+): the coordinates of the non-zero elements of data.
// Input 'data' of any type (boolean: true is non-zero; floats: NaN is non-zero, -0 is zero).
// Attribute output_type = i64 (default) | i32. Output [rank(data), n]: column j holds the
// coordinates of the j-th non-zero element in row-major order (for a scalar: [0, n]).
// n depends on the values: the kernel sizes its output (data_dependent_outputs), whose second dim
// stays dynamic in the model (irlite check shows -1) unless data is a constant, which is folded
// when the model loads. Prepare plans the data's shape and the scratch for the coordinates; the
// kernel counts, makes the output with KernelContext::dynamic_output and fills it, allocating
// nothing once the request's buffer holds the largest output so far.
#include <algorithm>
#include <type_traits>

#include "engine/op.hpp"

namespace irlite {
namespace {

struct NonZeroAttrs : OpAttrs {
    ElementType output_type = ElementType::i64;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<NonZeroAttrs>();
    const std::string t = r.get_string("output_type", "i64");
    if (t == "i64" || t == "I64") a->output_type = ElementType::i64;
    else if (t == "i32" || t == "I32") a->output_type = ElementType::i32;
    else throw Error(ErrorKind::Attribute, "attribute-invalid", str("attribute 'output_type' = ", t, ": output_type must be i32 or i64"));
    return a;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const PartialShape& data = ctx.shape(0);
    const ElementType type = ctx.attrs<NonZeroAttrs>().output_type;
    if (!data.rank_known()) return {{type, PartialShape({kDynamic, kDynamic})}};
    return {{type, PartialShape({static_cast<int64_t>(data.rank()), kDynamic})}};
}

template <class T>
bool is_non_zero(const T& v) {
    if constexpr (std::is_same_v<T, float16>) return (v.bits & 0x7FFF) != 0;
    else if constexpr (std::is_same_v<T, bfloat16>) return (v.bits & 0x7FFF) != 0;
    else return v != T(0);  // NaN != 0 is true
}

struct NonZeroPlan : OpPlan {
    Shape dims;            // data's shape
    int64_t elements = 0;  // and its element count
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    auto plan = std::make_unique<NonZeroPlan>();
    plan->dims = ctx.shape(0).to_shape();
    plan->elements = checked_num_elements(plan->dims);
    plan->scratch_bytes = plan->dims.size() * sizeof(int64_t);  // the running coordinates
    return plan;
}

template <class T>
int64_t count_non_zero(const T* x, int64_t elements) {
    int64_t count = 0;
    for (int64_t e = 0; e < elements; ++e) count += is_non_zero(x[e]) ? 1 : 0;
    return count;
}

// Column j of o ([rank, count]) is the coordinates of the j-th non-zero element, row-major; `at`
// holds the running coordinates (rank of them).
template <class T, class I>
void write_coordinates(const T* x, const NonZeroPlan& plan, int64_t count, I* o, int64_t* at) {
    const size_t rank = plan.dims.size();
    std::fill(at, at + rank, int64_t{0});
    int64_t j = 0;
    for (int64_t e = 0; e < plan.elements && j < count; ++e) {
        if (is_non_zero(x[e])) {
            for (size_t d = 0; d < rank; ++d) o[static_cast<int64_t>(d) * count + j] = static_cast<I>(at[d]);
            ++j;
        }
        for (size_t d = rank; d-- > 0;) {
            if (++at[d] < plan.dims[d]) break;
            at[d] = 0;
        }
    }
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<NonZeroPlan>();
    const Tensor& data = ctx.input(0);
    const ElementType type = ctx.attrs<NonZeroAttrs>().output_type;
    auto* at = static_cast<int64_t*>(ctx.scratch());
    dispatch_type(data.type(), [&](auto tag) {
        using T = decltype(tag);
        const T* x = data.data<T>();
        const int64_t count = count_non_zero(x, plan.elements);
        Tensor& out = ctx.dynamic_output(0, type, {static_cast<int64_t>(plan.dims.size()), count});
        if (type == ElementType::i32) write_coordinates(x, plan, count, out.data<int32_t>(), at);
        else write_coordinates(x, plan, count, out.data<int64_t>(), at);
    });
}

}  // namespace

OpDef make_non_zero_op() {
    OpDef d;
    d.type = "NonZero";
    d.version = 3;
    d.input_roles = {"data"};
    d.min_inputs = 1;
    d.num_outputs = 1;
    d.allocates_outputs = true;
    d.data_dependent_outputs = true;
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
