// Einsum-7 (opset7+): Einstein summation over 1 or more inputs of one numeric type.
// Attribute equation: "ij,jk->ik" style; labels are letters (a-z, A-Z), "..." stands for leading
// broadcast dims (numpy rule across inputs). Without "->" the output is every label that appears
// exactly once, in alphabetical order, after the ellipsis dims (numpy's implicit mode). A label
// repeated within one input takes that input's diagonal. Dims of one label must be equal in every
// input (1 stretches only inside the ellipsis).
// out[output labels] = sum over the other labels of the product of the inputs at those labels.
// Accumulated in f32 (f16, bf16, f32), f64, or the integer type with wrap-around.
// The kernel walks every combination of labels once (an odometer over output labels, then the
// summed ones), with each input's offset kept by per-label strides.
#include <algorithm>
#include <cctype>
#include <type_traits>

#include "engine/op.hpp"
#include "kernels/detail/float_value.hpp"
#include "kernels/detail/small_buffer.hpp"

namespace irlite {
namespace {

using detail::load_as;
using detail::store_as;

// Labels are small ints: letters 0..51, ellipsis dims 64 + i (counted from the leftmost).
constexpr int kEllipsisBase = 64;

struct EinsumAttrs : OpAttrs {
    std::string equation;
    std::vector<std::string> inputs;  // subscripts as written, "..." included
    std::string output;
    bool explicit_output = false;
};

int letter_label(char c) { return c >= 'a' && c <= 'z' ? c - 'a' : c - 'A' + 26; }

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<EinsumAttrs>();
    std::string eq;
    for (char c : r.get_string("equation"))
        if (c != ' ') eq += c;
    a->equation = eq;
    const auto invalid = [&](const std::string& why) {
        return Error(ErrorKind::Attribute, "attribute-invalid", str("equation \"", eq, "\": ", why));
    };
    const size_t arrow = eq.find("->");
    const std::string lhs = eq.substr(0, arrow);
    a->explicit_output = arrow != std::string::npos;
    if (a->explicit_output) a->output = eq.substr(arrow + 2);
    size_t start = 0;
    while (true) {
        const size_t comma = lhs.find(',', start);
        a->inputs.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    const auto check = [&](const std::string& sub) {
        size_t dots = 0;
        for (size_t i = 0; i < sub.size(); ++i) {
            if (sub.compare(i, 3, "...") == 0) {
                ++dots;
                i += 2;
            } else if (!std::isalpha(static_cast<unsigned char>(sub[i]))) {
                throw invalid(str("'", sub[i], "' is not a letter, a comma or \"...\""));
            }
        }
        if (dots > 1) throw invalid("\"...\" appears twice in one subscript");
    };
    for (const std::string& s : a->inputs) check(s);
    if (a->explicit_output) {
        check(a->output);
        for (size_t i = 0; i < a->output.size(); ++i)
            if (std::isalpha(static_cast<unsigned char>(a->output[i]))) {
                if (a->output.find(a->output[i], i + 1) != std::string::npos)
                    throw invalid(str("output label '", a->output[i], "' appears twice"));
                if (lhs.find(a->output[i]) == std::string::npos)
                    throw invalid(str("output label '", a->output[i], "' is not in any input"));
            }
    }
    return a;
}

// Each input's labels (ellipsis expanded), the output labels, and every label's dim.
struct Labels {
    std::vector<std::vector<int>> inputs;
    std::vector<int> output;
    std::vector<int64_t> dims;  // indexed by label id
};

std::vector<int> expand(const std::string& sub, size_t rank, size_t ellipsis_rank, bool* ok) {
    std::vector<int> out;
    size_t letters = 0;
    for (size_t i = 0; i < sub.size(); ++i) {
        if (sub.compare(i, 3, "...") == 0) i += 2;
        else ++letters;
    }
    const bool has_dots = sub.find("...") != std::string::npos;
    const size_t own_ellipsis = has_dots ? rank - std::min(rank, letters) : 0;
    *ok = has_dots ? rank >= letters : rank == letters;
    for (size_t i = 0; i < sub.size(); ++i) {
        if (sub.compare(i, 3, "...") == 0) {
            for (size_t e = 0; e < own_ellipsis; ++e) out.push_back(kEllipsisBase + static_cast<int>(ellipsis_rank - own_ellipsis + e));
            i += 2;
        } else {
            out.push_back(letter_label(sub[i]));
        }
    }
    return out;
}

Labels resolve(const InferContext& ctx, const std::vector<const std::vector<int64_t>*>& shapes) {
    const auto& a = ctx.attrs<EinsumAttrs>();
    if (shapes.size() != a.inputs.size())
        throw ctx.input_error(0, ErrorKind::Graph, "input-count",
                              str("equation \"", a.equation, "\" has ", a.inputs.size(), " operands, the layer has ", shapes.size(), " inputs"));
    size_t ellipsis_rank = 0;
    for (size_t i = 0; i < shapes.size(); ++i) {
        size_t letters = 0;
        const std::string& sub = a.inputs[i];
        for (size_t j = 0; j < sub.size(); ++j) {
            if (sub.compare(j, 3, "...") == 0) j += 2;
            else ++letters;
        }
        if (sub.find("...") != std::string::npos && shapes[i]->size() >= letters)
            ellipsis_rank = std::max(ellipsis_rank, shapes[i]->size() - letters);
    }
    Labels l;
    l.dims.assign(kEllipsisBase + ellipsis_rank, -2);  // -2: not seen
    for (size_t i = 0; i < shapes.size(); ++i) {
        bool ok = true;
        l.inputs.push_back(expand(a.inputs[i], shapes[i]->size(), ellipsis_rank, &ok));
        if (!ok)
            throw ctx.input_error(i, ErrorKind::ShapeRule, "rank-mismatch",
                                  str("subscript \"", a.inputs[i], "\" does not fit the input's rank ", shapes[i]->size()));
        for (size_t d = 0; d < l.inputs[i].size(); ++d) {
            const int label = l.inputs[i][d];
            const int64_t dim = (*shapes[i])[d];
            int64_t& known = l.dims[static_cast<size_t>(label)];
            if (known == -2 || known == kDynamic || (label >= kEllipsisBase && known == 1)) {
                known = dim;
            } else if (dim != kDynamic && dim != known && !(label >= kEllipsisBase && dim == 1)) {
                const std::string name = label >= kEllipsisBase ? std::string("...") : std::string(1, static_cast<char>(label < 26 ? 'a' + label : 'A' + label - 26));
                throw ctx.input_error(i, ErrorKind::ShapeRule, "dims-mismatch",
                                      str("label ", name, " has size ", known, " in one input and ", dim, " in the other"));
            }
        }
    }
    if (a.explicit_output) {
        bool ok = true;
        l.output = expand(a.output, a.output.find("...") != std::string::npos ? a.output.size() - 3 + ellipsis_rank : a.output.size(),
                          ellipsis_rank, &ok);
    } else {
        for (size_t e = 0; e < ellipsis_rank; ++e) l.output.push_back(kEllipsisBase + static_cast<int>(e));
        std::vector<int> count(52, 0);
        for (const auto& in : l.inputs)
            for (int label : in)
                if (label < kEllipsisBase) ++count[static_cast<size_t>(label)];
        for (int label = 0; label < 52; ++label)
            if (count[static_cast<size_t>(label)] == 1) l.output.push_back(label);
    }
    for (int& d : l.output)
        if (l.dims[static_cast<size_t>(d)] == -2) l.dims[static_cast<size_t>(d)] = 1;  // an ellipsis dim no input has
    return l;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const ElementType type = ctx.type(0);
    if (type == ElementType::boolean || !is_storable(type))
        throw ctx.input_error(0, ErrorKind::Type, "element-type-unsupported", str("inputs must be numeric, got ", to_string(type)));
    std::vector<const std::vector<int64_t>*> shapes;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
        if (ctx.type(i) != type)
            throw ctx.input_error(i, ErrorKind::Type, "element-type-mismatch",
                                  str("input ", i, " is ", to_string(ctx.type(i)), ", input 0 is ", to_string(type)));
        if (!ctx.shape(i).rank_known()) return {{type, PartialShape::dynamic_rank()}};
        shapes.push_back(&ctx.shape(i).dims());
    }
    const Labels l = resolve(ctx, shapes);
    std::vector<int64_t> dims;
    for (int label : l.output) dims.push_back(l.dims[static_cast<size_t>(label)]);
    return {{type, PartialShape(dims)}};
}

struct EinsumPlan : OpPlan {
    std::vector<int64_t> loop_dims;                  // output labels, then summed labels
    size_t output_loops = 0;
    std::vector<std::vector<int64_t>> strides;       // per input, per loop label: element stride
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);
    std::vector<const std::vector<int64_t>*> shapes;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) shapes.push_back(&ctx.shape(i).dims());
    const Labels l = resolve(ctx, shapes);
    std::vector<int> loops = l.output;
    for (const auto& in : l.inputs)
        for (int label : in)
            if (std::find(loops.begin(), loops.end(), label) == loops.end()) loops.push_back(label);
    auto plan = std::make_unique<EinsumPlan>();
    plan->output_loops = l.output.size();
    for (int label : loops) plan->loop_dims.push_back(l.dims[static_cast<size_t>(label)]);
    for (size_t i = 0; i < shapes.size(); ++i) {
        std::vector<int64_t> s(loops.size(), 0);
        int64_t stride = 1;
        for (size_t d = shapes[i]->size(); d-- > 0;) {
            const int label = l.inputs[i][d];
            const size_t at = static_cast<size_t>(std::find(loops.begin(), loops.end(), label) - loops.begin());
            if ((*shapes[i])[d] != 1) s[at] += stride;  // repeated labels add up: the diagonal
            stride *= (*shapes[i])[d];
        }
        plan->strides.push_back(std::move(s));
    }
    plan->method = "einsum";
    return plan;
}

// One odometer over every label (output labels outer, summed ones inner): each run of `inner`
// steps sums into one output element, in output order.
template <class T, class C>
void run(const KernelContext& ctx, const EinsumPlan& plan, Tensor& out) {
    const size_t n = ctx.num_inputs(), loops = plan.loop_dims.size();
    detail::SmallBuffer<const T*> data(n);
    for (size_t i = 0; i < n; ++i) data[i] = ctx.input(i).data<T>();
    T* o = out.data<T>();
    int64_t outputs = 1, inner = 1;
    for (size_t d = 0; d < loops; ++d) (d < plan.output_loops ? outputs : inner) *= plan.loop_dims[d];
    if (inner == 0) {
        for (int64_t e = 0; e < outputs; ++e) o[e] = store_as<T>(C(0));
        return;
    }
    detail::SmallBuffer<int64_t> at(loops);
    detail::SmallBuffer<int64_t> offset(n);
    C sum = C(0);
    int64_t e = 0, r = 0;
    for (int64_t step = 0, total = outputs * inner; step < total; ++step) {
        C product = C(1);
        for (size_t i = 0; i < n; ++i) product = static_cast<C>(product * load_as<C>(data[i][offset[i]]));
        sum = static_cast<C>(sum + product);
        if (++r == inner) {
            o[e++] = store_as<T>(sum);
            sum = C(0);
            r = 0;
        }
        for (size_t d = loops; d-- > 0;) {
            for (size_t i = 0; i < n; ++i) offset[i] += plan.strides[i][d];
            if (++at[d] < plan.loop_dims[d]) break;
            for (size_t i = 0; i < n; ++i) offset[i] -= plan.strides[i][d] * plan.loop_dims[d];
            at[d] = 0;
        }
    }
}

// Integers wrap: products and sums in the unsigned type of the same width.
template <class T, bool = std::is_integral_v<T>>
struct Accumulator {
    using type = std::conditional_t<std::is_same_v<T, double>, double, float>;
};
template <class T>
struct Accumulator<T, true> {
    using type = std::make_unsigned_t<T>;
};

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<EinsumPlan>();
    Tensor& out = ctx.output(0);
    if (out.num_elements() == 0) return;
    dispatch_type(out.type(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (!std::is_same_v<T, bool>) run<T, typename Accumulator<T>::type>(ctx, plan, out);
    });
}

}  // namespace

OpDef make_einsum_op() {
    OpDef d;
    d.type = "Einsum";
    d.version = 7;
    d.input_roles = {"inputs"};
    d.min_inputs = 1;
    d.variadic_inputs = true;
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
