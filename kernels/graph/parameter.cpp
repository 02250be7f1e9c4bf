// Parameter-1 (opset1+): a model input.
// Attributes: element_type, shape (a PartialShape: "1,3,224,224", "?,10", "-1", "1..8,3", "2..",
// "..5", "" for a scalar, "..." for a dynamic rank; optionally wrapped in [ ]).
// Output 0: the tensor bound by the user, checked against element_type and shape (intervals
// included). Types: all.
#include <limits>

#include "engine/op.hpp"

namespace irlite {
namespace {

constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();

struct DimRange {
    int64_t lo = 0, hi = kUnbounded;
    bool is_static() const { return lo == hi; }
};

struct ParameterAttrs : OpAttrs {
    ElementType type = ElementType::f32;
    bool rank_known = true;
    std::vector<DimRange> dims;
    std::string shape_text;
};

bool parse_bound(const std::string& s, int64_t& out) {
    if (s.empty()) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    if (s.size() > 18) return false;
    out = std::stoll(s);
    return true;
}

DimRange parse_dim(const std::string& field, const std::string& whole) {
    auto bad = [&](const char* why) {
        return Error(ErrorKind::Attribute, "attribute-invalid",
                     str("attribute 'shape' = \"", whole, "\" is invalid: ", why, " (dim \"", field, "\")"));
    };
    if (field.empty()) throw bad("empty dim");
    if (field == "?" || field == "-1") return {};
    const size_t dots = field.find("..");
    DimRange r;
    if (dots == std::string::npos) {
        if (!parse_bound(field, r.lo)) throw bad("expected an integer >= 0, -1, ? or an interval a..b");
        r.hi = r.lo;
        return r;
    }
    const std::string a = field.substr(0, dots), b = field.substr(dots + 2);
    if (!a.empty() && !parse_bound(a, r.lo)) throw bad("bad interval lower bound");
    if (!b.empty() && !parse_bound(b, r.hi)) throw bad("bad interval upper bound");
    if (r.lo > r.hi) throw bad("interval lower bound above upper bound");
    return r;
}

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<ParameterAttrs>();
    a->type = r.get_element_type("element_type");
    std::string s = r.get_string("shape");
    a->shape_text = s;
    // Drop spaces and optional brackets.
    std::string t;
    for (char c : s)
        if (c != ' ' && c != '\t') t += c;
    if (t.size() >= 2 && t.front() == '[' && t.back() == ']') t = t.substr(1, t.size() - 2);
    if (t == "...") {
        a->rank_known = false;
        return a;
    }
    if (t.empty()) return a;  // scalar
    size_t start = 0;
    while (true) {
        const size_t comma = t.find(',', start);
        a->dims.push_back(parse_dim(t.substr(start, comma == std::string::npos ? std::string::npos : comma - start), s));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return a;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const auto& a = ctx.attrs<ParameterAttrs>();
    if (!a.rank_known) return {{a.type, PartialShape::dynamic_rank()}};
    std::vector<int64_t> dims;
    for (const auto& d : a.dims) dims.push_back(d.is_static() ? d.lo : kDynamic);
    return {{a.type, PartialShape(dims)}};
}

std::string describe(const ParameterAttrs& a) {
    std::string s = std::string(to_string(a.type)) + " [";
    if (!a.rank_known) return s + "...]";
    for (size_t i = 0; i < a.dims.size(); ++i) {
        const auto& d = a.dims[i];
        if (i) s += ",";
        if (d.is_static()) s += std::to_string(d.lo);
        else if (d.lo == 0 && d.hi == kUnbounded) s += "?";
        else s += std::to_string(d.lo) + ".." + (d.hi == kUnbounded ? "" : std::to_string(d.hi));
    }
    return s + "]";
}

void compute(KernelContext& ctx) {
    const auto& a = ctx.attrs<ParameterAttrs>();
    const Tensor* in = ctx.bound_input();
    if (!in || !in->valid())
        throw Error(ErrorKind::Input, "input-missing", str("no input bound; expected ", describe(a)));
    const auto mismatch = [&](const std::string& what) {
        return Error(ErrorKind::Input, "input-mismatch",
                     str("input has ", what, "; expected ", describe(a), ", got ", to_string(in->type()), " ",
                         to_string(in->shape())));
    };
    if (in->type() != a.type) throw mismatch("the wrong element type");
    if (a.rank_known) {
        if (in->rank() != a.dims.size()) throw mismatch("the wrong rank");
        for (size_t i = 0; i < a.dims.size(); ++i)
            if (in->shape()[i] < a.dims[i].lo || in->shape()[i] > a.dims[i].hi)
                throw mismatch(str("dim ", i, " = ", in->shape()[i], " outside the allowed range"));
    }
    ctx.output(0) = *in;
}

}  // namespace

OpDef make_parameter_op() {
    OpDef d;
    d.type = "Parameter";
    d.version = 1;
    d.role = OpRole::Parameter;
    d.foldable = false;
    d.allocates_outputs = true;
    d.parse_attrs = parse;
    d.infer = infer;
    d.compute = compute;
    return d;
}

}  // namespace irlite
