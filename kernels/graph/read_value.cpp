// ReadValue-3 (opset3..5) and ReadValue-6 (opset6+): read a stateful variable of the infer
// request. ReadValue-3 is the same with its 'init' input required.
// Input 0 'init' (optional): the value used while the variable is not set yet (after creation or
// InferRequest::reset_state()). Attribute variable_id (required). Optional attributes
// variable_type and variable_shape (written by newer serializers) fix the variable's type and shape.
// Output 0: the stored tensor (shared, not copied: Assign stores fresh copies, so the stored
// buffer is never written again), or a copy of 'init', or zeros of variable_type/variable_shape
// when there is neither. Never folded: its value changes between runs.
// Types: all.
#include "engine/op.hpp"

namespace irlite {
namespace {

struct ReadValueAttrs : OpAttrs {
    std::string variable_id;
    bool has_declared_type = false;
    ElementType declared_type = ElementType::f32;
    bool has_declared_shape = false;
    PartialShape declared_shape;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<ReadValueAttrs>();
    a->variable_id = r.get_string("variable_id");
    if (a->variable_id.empty())
        throw Error(ErrorKind::Attribute, "attribute-invalid", "attribute 'variable_id' must not be empty");
    const std::string type = r.get_string("variable_type", "");
    if (!type.empty() && type != "dynamic" && type != "undefined") {
        a->has_declared_type = true;
        a->declared_type = r.get_element_type("variable_type");
    }
    const std::string shape = r.get_string("variable_shape", "");
    if (r.has("variable_shape") && shape != "..." && shape != "[...]") {
        std::string t;
        for (char c : shape)
            if (c != '[' && c != ']' && c != ' ') t += c;
        std::vector<int64_t> dims;
        size_t start = 0;
        while (!t.empty()) {
            const size_t comma = t.find(',', start);
            const std::string field = t.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            if (field == "?" || field == "-1" || field.find("..") != std::string::npos) {
                dims.push_back(kDynamic);
            } else {
                try {
                    size_t used = 0;
                    dims.push_back(std::stoll(field, &used));
                    if (used != field.size() || dims.back() < 0) throw std::invalid_argument(field);
                } catch (const std::exception&) {
                    throw Error(ErrorKind::Attribute, "attribute-invalid",
                                str("attribute 'variable_shape' = \"", shape, "\" is invalid: bad dim \"", field, "\""));
                }
            }
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        a->has_declared_shape = true;
        a->declared_shape = PartialShape(dims);
    }
    return a;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const auto& a = ctx.attrs<ReadValueAttrs>();
    if (ctx.num_inputs() == 0) {
        if (!a.has_declared_type || !a.has_declared_shape)
            throw Error(ErrorKind::Attribute, "attribute-missing",
                        str("ReadValue '", a.variable_id,
                            "' has no 'init' input, so it needs both variable_type and variable_shape"));
        return {{a.declared_type, a.declared_shape}};
    }
    if (a.has_declared_type && a.declared_type != ctx.type(0))
        throw ctx.input_error(0, ErrorKind::Type, "type-mismatch",
                              str("init is ", to_string(ctx.type(0)), " but variable_type is ", to_string(a.declared_type)));
    if (a.has_declared_shape && !shapes_compatible(a.declared_shape, ctx.shape(0)))
        throw ctx.input_error(0, ErrorKind::ShapeRule, "dims-mismatch",
                              str("init has shape ", to_string(ctx.shape(0)), " but variable_shape is ",
                                  to_string(a.declared_shape)));
    // The stored value may differ in shape from init only where the declared shape allows it.
    return {{ctx.type(0), a.has_declared_shape ? a.declared_shape : ctx.shape(0)}};
}

void compute(KernelContext& ctx) {
    const auto& a = ctx.attrs<ReadValueAttrs>();
    VariableStore* store = ctx.variables();
    if (!store)
        throw Error(ErrorKind::Usage, "no-variables", str("ReadValue '", a.variable_id, "' needs an infer request"));
    if (const Tensor* stored = store->find(a.variable_id)) {
        ctx.output(0) = *stored;
        return;
    }
    if (ctx.num_inputs() > 0) {
        ctx.output(0) = ctx.input(0).clone();
        return;
    }
    if (!a.declared_shape.is_static())
        throw Error(ErrorKind::Value, "variable-unset",
                    str("variable '", a.variable_id, "' is not set, has no 'init' input and its variable_shape ",
                        to_string(a.declared_shape), " is not static"));
    ctx.output(0) = Tensor(a.declared_type, a.declared_shape.to_shape());
}

}  // namespace

OpDef make_read_value_op() {
    OpDef d;
    d.type = "ReadValue";
    d.version = 6;
    d.first_opset = 6;
    d.input_roles = {"init"};
    d.min_inputs = 0;
    d.foldable = false;
    d.allocates_outputs = true;
    d.parse_attrs = parse;
    d.infer = infer;
    d.compute = compute;
    return d;
}

OpDef make_read_value_3_op() {
    OpDef d = make_read_value_op();
    d.version = 3;
    d.first_opset = 3;
    d.last_opset = 5;
    d.min_inputs = 1;
    return d;
}

}  // namespace irlite
