// What graph fusion (engine/fusion.hpp) hands to an op's kernel: the elementwise work that followed
// the op in the graph and now runs inside it, on its output while that is still in registers or
// cache. Typed data only (no XML): the fusion pass builds it from the fused ops' own descriptions
// (OpDef::as_activation, OpDef::is_add) and the op receives it in its attributes
// (OpDef::with_epilogue), from where its prepare step copies what its kernel needs into its plan.
//
//   out = fq(act((y + bias) + residual))  y the op's own result; each part optional
//
// fq, a FakeQuantize with scalar ranges, only for heads that apply it (OpDef::takes_fake_quantize).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace irlite {

// Elementwise activations an epilogue can apply, with the same formulas as their ops.
enum class ActivationKind : uint8_t {
    None,
    Relu,      // max(x, 0)
    Clamp,     // min(max(x, alpha), beta)
    Sigmoid,   // 1 / (1 + exp(-x))
    Tanh,
    Swish,     // x / (1 + exp(-alpha x))
    HSwish,    // x * min(max(x + 3, 0), 6) / 6
    HSigmoid,  // min(max(x + 3, 0), 6) / 6
    Elu,       // x > 0 ? x : alpha (exp(x) - 1)
    GeluErf,   // 0.5 x (1 + erf(x / sqrt 2))
    GeluTanh,  // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
    SoftPlus,  // log(1 + exp(x))
    Mish,      // x tanh(softplus(x))
};

struct Activation {
    ActivationKind kind = ActivationKind::None;
    float alpha = 0, beta = 0;  // Clamp: min, max; Elu: alpha; Swish: beta (in alpha)
};

// FakeQuantize with one range for the whole tensor, as its op computes it
// (kernels/detail/fake_quantize_row.hpp).
struct EpilogueFakeQuantize {
    bool active = false;
    float in_low = 0, in_high = 0, out_low = 0, out_high = 0;
    int64_t levels = 0;
};

struct Epilogue {
    // Added first: empty (none), one value (a scalar) or one value per channel along channel_axis.
    std::vector<float> bias;
    int channel_axis = 1;  // an axis of the output (non-negative)
    // Added next: the node's last input, a tensor of the output's shape and type (a residual
    // connection). The op's own inputs come first.
    bool residual = false;
    Activation act;
    // Last, on the activation's result.
    EpilogueFakeQuantize fake_quantize;
    // The IR types of the fused ops after the head, in graph order ("Add", "Add", "ReLU").
    std::vector<std::string> parts;

    bool empty() const {
        return bias.empty() && !residual && act.kind == ActivationKind::None && !fake_quantize.active;
    }
};

}  // namespace irlite
