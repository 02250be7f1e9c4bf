// NonZero-3 (opset3+): the coordinates of the non-zero elements of data.
// Input 'data' of any type (boolean: true is non-zero; floats: NaN is non-zero, -0 is zero).
// Attribute output_type = i64 (default) | i32. Output [rank(data), n]: column j holds the
// coordinates of the j-th non-zero element in row-major order (for a scalar: [0, n]).
// n depends on the values: the output is made by the kernel, and its dim stays dynamic in the
// model (irlite check shows -1) unless data is a constant, which is folded when the model loads.
#include <cstring>
#include <type_traits>

#include "engine/op.hpp"
#include "kernels/detail/small_buffer.hpp"

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

template <class T, class I>
void fill(const Tensor& data, Tensor& out, int64_t count) {
    const T* x = data.data<T>();
    const size_t rank = data.rank();
    I* o = out.data<I>();
    detail::SmallBuffer<int64_t> at(rank);
    int64_t j = 0;
    for (int64_t e = 0; e < data.num_elements(); ++e) {
        if (is_non_zero(x[e])) {
            for (size_t d = 0; d < rank; ++d) o[static_cast<int64_t>(d) * count + j] = static_cast<I>(at[d]);
            ++j;
        }
        for (size_t d = rank; d-- > 0;) {
            if (++at[d] < data.shape()[d]) break;
            at[d] = 0;
        }
    }
}

void compute(KernelContext& ctx) {
    const Tensor& data = ctx.input(0);
    const ElementType type = ctx.attrs<NonZeroAttrs>().output_type;
    dispatch_type(data.type(), [&](auto tag) {
        using T = decltype(tag);
        const T* x = data.data<T>();
        int64_t count = 0;
        for (int64_t e = 0; e < data.num_elements(); ++e) count += is_non_zero(x[e]) ? 1 : 0;
        Tensor out(type, Shape{static_cast<int64_t>(data.rank()), count});
        if (type == ElementType::i32) fill<T, int32_t>(data, out, count);
        else fill<T, int64_t>(data, out, count);
        ctx.output(0) = std::move(out);
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
    d.parse_attrs = parse;
    d.infer = infer;
    d.compute = compute;
    return d;
}

}  // namespace irlite
