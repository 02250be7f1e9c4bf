// Constant-1 (IR type "Const", opset1+): data stored in the .bin.
// Attributes: element_type, shape ("1,3", "1, 3"; "" = scalar), offset and size (bytes into the
// .bin). The tensor is a zero-copy view into the memory-mapped .bin (an aligned copy when the
// offset is not a multiple of the element size, and a copy of 0s and 1s for a boolean Const with
// other bytes: any nonzero byte is true).
// size: OpenVINO requires size >= the bytes the type and shape need, and reads only those (it
// writes empty Consts with size="1"); so does irlite. A larger size is a warning of check and run
// (the graph builder's const-size-larger).
// Types: every OpenVINO type is valid (its type and shape propagate); irlite's storable types and
// the packed weight types (u1, u4, i4, nf4, f4e2m1, f8e4m3, f8e5m2, f8e8m0) get a value (u2, u3,
// u6 and string Consts are values irlite cannot hold). Without weights
// (check --no-weights, or no .bin) the value is unknown and the graph builder treats it so.
#include <cstdint>
#include <cstring>

#include "engine/op.hpp"
#include "engine/tensor_size.hpp"

namespace irlite {
namespace {

struct ConstAttrs : OpAttrs {
    ElementType type = ElementType::f32;
    Shape shape;
    Tensor value;  // invalid when the bytes are not known (no weights, or a type irlite cannot hold)
};

// Whether every one of n bytes is 0 or 1.
bool bytes_are_bools(const std::byte* bytes, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
        if (static_cast<uint8_t>(bytes[i]) > 1) return false;
    return true;
}

Error attribute_error(std::string code, std::string message) {
    return Error(ErrorKind::Attribute, std::move(code), std::move(message));
}

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<ConstAttrs>();
    a->type = r.get_element_type("element_type");
    const std::vector<int64_t> dims = r.get_i64_list("shape");
    for (int64_t d : dims)
        if (d < 0)
            throw attribute_error("attribute-invalid",
                                  str("attribute 'shape' = \"", r.get_string("shape"), "\" is invalid: dims must be >= 0"));
    a->shape = Shape(dims);
    const int64_t offset = r.get_i64("offset");
    const int64_t size = r.get_i64("size");
    if (offset < 0 || size < 0)
        throw attribute_error("attribute-invalid", str("offset (", offset, ") and size (", size, ") must be >= 0"));
    // -1 for string and dynamic, whose byte size the shape does not give. A shape whose bytes
    // overflow 64 bits (a u4 Const of 2^62 elements: 2^64 bits) is refused here, with or without
    // the .bin, so that check and run say the same (size-overflow).
    const bool sized = is_storable(a->type) || traits(a->type).bits > 0;
    const int64_t needed = sized ? static_cast<int64_t>(tensor_storage_bytes(a->type, a->shape)) : -1;
    if (needed >= 0 && size < needed)
        throw attribute_error("const-size-mismatch",
                              str("size = ", size, " bytes, but element_type ", to_string(a->type), " x shape ",
                                  to_string(a->shape), " needs ", needed, " bytes"));
    const WeightsBlob* w = r.weights();
    if (!is_storable(a->type) && !is_packed(a->type)) return a;
    if (needed == 0) {
        a->value = Tensor(a->type, dims);  // empty: no bytes to read
        return a;
    }
    if (!w) return a;  // the graph builder reports the missing weights (once)
    if (static_cast<uint64_t>(offset) > w->size || static_cast<uint64_t>(size) > w->size - static_cast<uint64_t>(offset))
        throw Error(ErrorKind::Parse, "const-out-of-bin",
                    str("offset ", offset, " + size ", size, " = ", static_cast<uint64_t>(offset) + static_cast<uint64_t>(size),
                        " is beyond the end of the weights file (", w->size, " bytes", w->path.empty() ? "" : ", ",
                        w->path, ")"));
    const std::byte* bytes = w->data + offset;
    if (a->type == ElementType::boolean && !bytes_are_bools(bytes, needed)) {
        // A byte other than 0 and 1 is true, as OpenVINO reads it; kernels load booleans as C++
        // bool, for which any other byte is undefined, so such a Const gets a copy of 0s and 1s.
        a->value = Tensor(a->type, dims);
        auto* out = static_cast<uint8_t*>(a->value.data());
        for (int64_t i = 0; i < needed; ++i) out[i] = bytes[i] != std::byte{0} ? 1 : 0;
        return a;
    }
    if (!is_packed(a->type) && reinterpret_cast<uintptr_t>(bytes) % element_size(a->type) != 0) {
        // The .bin has no alignment padding: a Const after an odd-sized one is misaligned for its
        // type, and kernels read typed elements. Such a Const gets an aligned copy.
        a->value = Tensor(a->type, dims);
        std::memcpy(a->value.data(), bytes, static_cast<size_t>(needed));
        return a;
    }
    // The .bin is read-only: the view is const in spirit; kernels never write their inputs.
    a->value = Tensor::wrap(a->type, dims, const_cast<std::byte*>(bytes),
                            std::shared_ptr<void>(w->owner, const_cast<void*>(w->owner.get())));
    return a;
}

}  // namespace

OpDef make_const_op() {
    OpDef d;
    d.type = "Const";
    d.version = 1;
    d.allocates_outputs = true;
    d.accepts_packed = true;
    d.parse_attrs = parse;
    d.infer = [](const InferContext& ctx) {
        const auto& a = ctx.attrs<ConstAttrs>();
        return std::vector<OutputInfo>{{a.type, PartialShape(a.shape)}};
    };
    d.compute = [](KernelContext& ctx) {
        const auto& a = ctx.attrs<ConstAttrs>();
        if (!a.value.valid())
            throw Error(ErrorKind::Io, "bin-missing",
                        "this Const's bytes were not loaded (no weights file, or a type irlite does not store)");
        ctx.output(0) = a.value;
    };
    return d;
}

}  // namespace irlite
