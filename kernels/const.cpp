// Constant-1 (IR type "Const", opset1+): data stored in the .bin.
// Attributes: element_type, shape ("1,3", "1, 3"; "" = scalar), offset and size (bytes into the
// .bin). The tensor is a zero-copy view into the memory-mapped .bin (an aligned copy when the
// offset is not a multiple of the element size). irlite requires size to equal
// the element count x byte width exactly (OpenVINO also accepts a larger size; a mismatch almost
// always means a wrong shape or type). Types: all.
#include <cstdint>
#include <cstring>

#include "engine/op.hpp"

namespace irlite {
namespace {

struct ConstAttrs : OpAttrs {
    Tensor value;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<ConstAttrs>();
    const ElementType type = r.get_element_type("element_type");
    const std::vector<int64_t> dims = r.get_i64_list("shape");
    for (int64_t d : dims)
        if (d < 0)
            throw Error(ErrorKind::Attribute, "attribute-invalid",
                        str("attribute 'shape' = \"", r.get_string("shape"), "\" is invalid: dims must be >= 0"));
    const int64_t offset = r.get_i64("offset");
    const int64_t size = r.get_i64("size");
    if (offset < 0 || size < 0)
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("offset (", offset, ") and size (", size, ") must be >= 0"));
    const size_t needed = checked_byte_size(dims, element_size(type));
    if (static_cast<uint64_t>(size) != needed)
        throw Error(ErrorKind::Attribute, "const-size-mismatch",
                    str("size = ", size, " bytes, but element_type ", to_string(type), " x shape ",
                        to_string(Shape(dims)), " needs ", needed, " bytes"));
    const WeightsBlob* w = r.weights();
    if (!w)
        throw Error(ErrorKind::Io, "bin-missing",
                    "this Const needs the weights file (.bin), but none was found or given");
    if (static_cast<uint64_t>(offset) > w->size || static_cast<uint64_t>(size) > w->size - static_cast<uint64_t>(offset))
        throw Error(ErrorKind::Parse, "const-out-of-bin",
                    str("offset ", offset, " + size ", size, " = ", static_cast<uint64_t>(offset) + static_cast<uint64_t>(size),
                        " is beyond the end of the weights file (", w->size, " bytes", w->path.empty() ? "" : ", ",
                        w->path, ")"));
    const std::byte* bytes = w->data + offset;
    if (reinterpret_cast<uintptr_t>(bytes) % element_size(type) != 0) {
        // The .bin has no alignment padding: a Const after an odd-sized one is misaligned for its
        // type, and kernels read typed elements. Such a Const gets an aligned copy.
        a->value = Tensor(type, dims);
        if (needed) std::memcpy(a->value.data(), bytes, needed);
        return a;
    }
    // The .bin is read-only: the view is const in spirit; kernels never write their inputs.
    a->value = Tensor::wrap(type, dims, const_cast<std::byte*>(bytes),
                            std::shared_ptr<void>(w->owner, const_cast<void*>(w->owner.get())));
    return a;
}

}  // namespace

OpDef make_const_op() {
    OpDef d;
    d.type = "Const";
    d.version = 1;
    d.allocates_outputs = true;
    d.parse_attrs = parse;
    d.infer = [](const InferContext& ctx) {
        const Tensor& v = ctx.attrs<ConstAttrs>().value;
        return std::vector<OutputInfo>{{v.type(), PartialShape(v.shape())}};
    };
    d.compute = [](KernelContext& ctx) { ctx.output(0) = ctx.attrs<ConstAttrs>().value; };
    return d;
}

}  // namespace irlite
