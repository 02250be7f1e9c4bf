// The recurrent core (recurrent.hpp): attributes, shape rule, prepare and kernel of the LSTM, GRU
// and RNN cells and sequences.
#include "kernels/detail/recurrent.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <optional>
#include <type_traits>

#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/nn_common.hpp"
#include "kernels/detail/nn_gemm.hpp"
#include "kernels/detail/parallel.hpp"
#include "kernels/detail/sgemm.hpp"
#include "kernels/detail/vec_math.hpp"

namespace irlite::rnn {
namespace {

// hidden_size is bounded so that gates * hidden_size * any dim stays far from int64 overflow
// before the graph builder's own size checks see the outputs.
constexpr int64_t kMaxHiddenSize = int64_t{1} << 31;

int64_t gate_count(Cell c) { return c == Cell::Lstm ? 4 : c == Cell::Gru ? 3 : 1; }
size_t activation_count(Cell c) { return c == Cell::Lstm ? 3 : c == Cell::Gru ? 2 : 1; }

std::vector<std::string> default_activations(Cell c) {
    if (c == Cell::Lstm) return {"sigmoid", "tanh", "tanh"};
    if (c == Cell::Gru) return {"sigmoid", "tanh"};
    return {"tanh"};
}

std::vector<std::string> split_names(const std::string& s) {
    std::vector<std::string> out;
    std::string cur;
    for (char ch : s) {
        if (ch == ',') {
            out.push_back(cur);
            cur.clear();
        } else if (ch != ' ') {
            cur += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        }
    }
    if (!cur.empty() || !out.empty()) out.push_back(cur);
    return out;
}

[[noreturn]] void attribute_invalid(const char* op, const std::string& message) {
    throw Error(ErrorKind::Attribute, "attribute-invalid", str(op, " ", message));
}

}  // namespace

std::unique_ptr<OpAttrs> parse_attrs(const AttrReader& r, const RecurrentOp& op) {
    auto a = std::make_unique<RecurrentAttrs>();
    a->hidden_size = r.get_i64("hidden_size");
    if (a->hidden_size < 1 || a->hidden_size >= kMaxHiddenSize)
        attribute_invalid(op.name, str("hidden_size = ", a->hidden_size, " must be in [1, ", kMaxHiddenSize - 1, "]"));
    std::vector<std::string> names = default_activations(op.cell);
    if (r.has("activations") && !r.get_string("activations").empty()) names = split_names(r.get_string("activations"));
    if (names.size() != activation_count(op.cell))
        attribute_invalid(op.name, str("activations has ", names.size(), " functions (\"",
                                       r.has("activations") ? r.get_string("activations") : std::string(), "\"), ",
                                       activation_count(op.cell), " required"));
    std::vector<double> alpha, beta;
    if (r.has("activations_alpha")) alpha = r.get_f64_list("activations_alpha");
    if (r.has("activations_beta")) beta = r.get_f64_list("activations_beta");
    for (size_t i = 0; i < names.size(); ++i) {
        Activation act;
        if (names[i] == "sigmoid")
            act.kind = Activation::Kind::Sigmoid;
        else if (names[i] == "tanh")
            act.kind = Activation::Kind::Tanh;
        else if (names[i] == "relu")
            act.kind = Activation::Kind::Relu;
        else
            attribute_invalid(op.name, str("activation \"", names[i],
                                           "\" is not an activation function; allowed: sigmoid, tanh, relu"));
        if (i < alpha.size()) act.alpha = static_cast<float>(alpha[i]);
        if (i < beta.size()) act.beta = static_cast<float>(beta[i]);
        a->activations.push_back(act);
    }
    const double clip = r.get_f64("clip", 0.0);
    if (!(clip >= 0)) attribute_invalid(op.name, str("clip = ", clip, " must be >= 0 (0: no clipping)"));
    a->clip = std::isinf(clip) ? 0.0f : static_cast<float>(clip);
    if (op.sequence) {
        const std::string d = r.get_enum("direction", {"forward", "reverse", "bidirectional"}, "forward");
        if (!r.has("direction"))
            throw Error(ErrorKind::Attribute, "attribute-missing", str(op.name, " needs the attribute direction"));
        a->direction = d == "forward"   ? Direction::Forward
                       : d == "reverse" ? Direction::Reverse
                                        : Direction::Bidirectional;
    }
    if (op.cell == Cell::Gru) a->linear_before_reset = r.get_bool("linear_before_reset", false);
    if (op.p != kNoPort) a->input_forget = r.get_bool("input_forget", false);
    return a;
}

// ---- shape rule ----------------------------------------------------------------------------------

namespace {

struct Dims {
    int64_t n = kDynamic, t = 1, i = kDynamic, h = 0, d = 1, g = 1, bias = 0;
};

bool has(const InferContext& ctx, size_t port) { return port != kNoPort && port < ctx.num_inputs(); }

int64_t known_dim(const InferContext& ctx, size_t port, size_t axis) {
    if (!has(ctx, port) || !ctx.shape(port).rank_known() || ctx.shape(port).rank() <= axis) return kDynamic;
    return ctx.shape(port)[axis];
}

void check_input(const InferContext& ctx, const RecurrentOp& op, size_t port, const std::vector<int64_t>& want,
                 const std::string& legend) {
    if (!has(ctx, port)) return;
    const PartialShape& s = ctx.shape(port);
    const std::string role = ctx.def().input_role(port);
    if (!s.rank_known()) return;
    if (s.rank() != want.size())
        throw ctx.input_error(port, ErrorKind::ShapeRule, "rank-invalid",
                              str(op.name, " ", role, " is ", to_string(s), ", a ", want.size(), "-D tensor ",
                                  to_string(PartialShape(want)), " is required (", legend, ")"));
    for (size_t k = 0; k < want.size(); ++k)
        if (!dims_compatible(s[k], want[k]))
            throw ctx.input_error(port, ErrorKind::ShapeRule, "shape-mismatch",
                                  str(op.name, " ", role, " is ", to_string(s), " but ", to_string(PartialShape(want)),
                                      " is required (", legend, ")"));
}

Dims check_shapes(const InferContext& ctx, const RecurrentOp& op) {
    const auto& a = ctx.attrs<RecurrentAttrs>();
    const ElementType type = ctx.type(op.x);
    if (!is_storable_float(type))
        throw ctx.input_error(
            op.x, ErrorKind::Type, "element-type-unsupported",
            str(op.name, " X must be a floating-point tensor (f16, bf16, f32, f64), got ", to_string(type)));
    for (size_t port : {op.h, op.c, op.w, op.r, op.b, op.p})
        if (has(ctx, port) && ctx.type(port) != type)
            throw ctx.input_error(port, ErrorKind::Type, "element-type-mismatch",
                                  str(op.name, " ", ctx.def().input_role(port), " is ", to_string(ctx.type(port)),
                                      ", X is ", to_string(type), "; they must be the same"));
    if (has(ctx, op.lengths) && ctx.type(op.lengths) != ElementType::i32 && ctx.type(op.lengths) != ElementType::i64)
        throw ctx.input_error(op.lengths, ErrorKind::Type, "element-type-unsupported",
                              str(op.name, " sequence_lengths must be an integer tensor (i32 or i64), got ",
                                  to_string(ctx.type(op.lengths))));

    Dims d;
    d.h = a.hidden_size;
    d.g = gate_count(op.cell);
    d.d = a.direction == Direction::Bidirectional ? 2 : 1;
    d.bias = (op.cell == Cell::Gru && a.linear_before_reset ? 4 : d.g) * d.h;
    const size_t x_rank = op.sequence ? 3 : 2;
    for (size_t port : {op.x, op.h, op.c, op.lengths}) {
        if (d.n != kDynamic) break;
        d.n = known_dim(ctx, port, 0);
    }
    d.i = known_dim(ctx, op.x, x_rank - 1);
    if (d.i == kDynamic) d.i = known_dim(ctx, op.w, op.sequence ? 2 : 1);
    if (op.sequence) d.t = known_dim(ctx, op.x, 1);

    const std::string legend = str(
        "batch ", d.n == kDynamic ? std::string("?") : std::to_string(d.n),
        op.sequence ? str(", num_directions ", d.d) : std::string(), ", hidden_size ", d.h, ", input_size ",
        d.i == kDynamic ? std::string("?") : std::to_string(d.i),
        op.cell == Cell::Gru ? str(", linear_before_reset ", a.linear_before_reset ? "true" : "false") : std::string());
    auto with_dirs = [&](std::vector<int64_t> dims) {
        if (op.sequence) dims.insert(dims.begin(), d.d);
        return dims;
    };
    check_input(ctx, op, op.x, op.sequence ? std::vector<int64_t>{d.n, d.t, d.i} : std::vector<int64_t>{d.n, d.i},
                legend);
    // The weights first: a hidden_size or a direction that disagrees with them is named there.
    check_input(ctx, op, op.w, with_dirs({d.g * d.h, d.i}), legend);
    check_input(ctx, op, op.r, with_dirs({d.g * d.h, d.h}), legend);
    check_input(ctx, op, op.b, with_dirs({d.bias}), legend);
    check_input(ctx, op, op.p, {3 * d.h}, legend);
    const std::vector<int64_t> state =
        op.sequence ? std::vector<int64_t>{d.n, d.d, d.h} : std::vector<int64_t>{d.n, d.h};
    check_input(ctx, op, op.h, state, legend);
    check_input(ctx, op, op.c, state, legend);
    check_input(ctx, op, op.lengths, {d.n}, legend);
    return d;
}

}  // namespace

std::vector<OutputInfo> infer(const InferContext& ctx, const RecurrentOp& op) {
    const Dims d = check_shapes(ctx, op);
    const ElementType type = ctx.type(op.x);
    std::vector<OutputInfo> out;
    if (op.sequence) {
        out.push_back({type, PartialShape({d.n, d.d, d.t, d.h})});
        out.push_back({type, PartialShape({d.n, d.d, d.h})});
        if (op.cell == Cell::Lstm) out.push_back({type, PartialShape({d.n, d.d, d.h})});
    } else {
        out.push_back({type, PartialShape({d.n, d.h})});
        if (op.cell == Cell::Lstm) out.push_back({type, PartialShape({d.n, d.h})});
    }
    return out;
}

// ---- prepare -------------------------------------------------------------------------------------

namespace {

// out[m, n] = a[m, k] * B^T (+ bias per column) with B [n, k] per direction: packed once in the plan
// when it is a constant (f32 path), else read where it lies.
struct Product {
    int64_t m = 0, n = 0, k = 0;
    nn::GemmPlan gemm;          // f32 path
    std::vector<float> packed;  // every direction's packed B, `stride` floats apart; empty: plain
    size_t stride = 0;
};

struct RecurrentPlan : OpPlan {
    RecurrentOp op{};
    Cell cell = Cell::Lstm;
    int64_t n = 0, t = 0, i = 0, h = 0, d = 1, g = 1, bias = 0;
    Direction direction = Direction::Forward;
    Activation f, g_act, h_act;
    float clip = 0;
    bool lbr = false, input_forget = false, has_b = false, has_p = false, has_c_in = false;
    bool f32 = true;           // compute in float through sgemm; else double through Eigen
    Product proj, rec, rec_h;  // rec_h: GRU without linear_before_reset, (r (.) H) Rh^T
    int64_t rec_cols = 0;
    size_t off_xp = 0, off_hp = 0, off_hh = 0, off_rh = 0, off_hs = 0, off_cs = 0, off_len = 0;
    // Inputs (by port) and outputs converted to the compute type (f16/bf16 as f32): offset, bytes.
    std::vector<std::pair<size_t, size_t>> in_conv, out_conv;
    nn::ScratchSpace space(const KernelContext& ctx, const std::pair<size_t, size_t>& at) const {
        return {static_cast<std::byte*>(ctx.scratch()) + at.first, at.second};
    }
};

void plan_product(Product& p, int64_t m, int64_t n, int64_t k, const Tensor* constant, int64_t row_offset,
                  int64_t rows_per_dir, int64_t dirs, bool f32, int workers) {
    p.m = m, p.n = n, p.k = k;
    if (!f32 || k == 0) return;
    const bool pack = constant != nullptr;
    p.gemm = nn::plan_gemm(std::max<int64_t>(m, 1), n, k, false, pack, workers);
    if (!pack) return;
    std::vector<float> all(static_cast<size_t>(constant->num_elements()));
    nn::load_as<float>(*constant, all.data());
    p.stride = nn::packed_b_floats(p.gemm.layout, n);
    p.packed.resize(p.stride * static_cast<size_t>(dirs));
    for (int64_t d = 0; d < dirs; ++d)
        nn::pack_b(p.gemm.layout, all.data() + (d * rows_per_dir + row_offset) * k, k, true, n,
                   p.packed.data() + static_cast<size_t>(d) * p.stride);
}

}  // namespace

std::unique_ptr<OpPlan> prepare(const InferContext& ctx, const RecurrentOp& op) {
    const auto& a = ctx.attrs<RecurrentAttrs>();
    const Dims dims = check_shapes(ctx, op);
    auto p = std::make_unique<RecurrentPlan>();
    p->op = op;
    p->cell = op.cell;
    p->n = dims.n, p->t = dims.t, p->i = dims.i, p->h = dims.h, p->d = dims.d, p->g = dims.g, p->bias = dims.bias;
    p->direction = a.direction;
    p->f = a.activations[0];
    if (a.activations.size() > 1) p->g_act = a.activations[1];
    if (a.activations.size() > 2) p->h_act = a.activations[2];
    p->clip = a.clip;
    p->lbr = a.linear_before_reset;
    p->input_forget = a.input_forget;
    p->has_b = has(ctx, op.b);
    p->has_p = has(ctx, op.p);
    p->has_c_in = has(ctx, op.c);
    p->f32 = ctx.type(op.x) != ElementType::f64;
    const int workers = nn::gemm_workers(ctx.threads());
    const int64_t gh = p->g * p->h;
    const bool split_h = op.cell == Cell::Gru && !p->lbr;
    p->rec_cols = split_h ? 2 * p->h : gh;
    const Tensor* w = ctx.value(op.w);
    const Tensor* r = ctx.value(op.r);
    plan_product(p->proj, p->n * p->t, gh, p->i, w, 0, gh, p->d, p->f32, workers);
    plan_product(p->rec, p->n, p->rec_cols, p->h, r, 0, gh, p->d, p->f32, workers);
    if (split_h) plan_product(p->rec_h, p->n, p->h, p->h, r, 2 * p->h, gh, p->d, p->f32, workers);
    p->method = p->f32 ? (!p->proj.packed.empty() || !p->rec.packed.empty() ? "sgemm-packed" : "sgemm") : "gemm";

    const size_t elem = p->f32 ? sizeof(float) : sizeof(double);
    size_t at = nn::round64(std::max({p->proj.gemm.scratch_bytes, p->rec.gemm.scratch_bytes, p->rec_h.gemm.scratch_bytes}));
    auto take = [&](int64_t count, size_t size) {
        const size_t o = at;
        at += nn::round64(static_cast<size_t>(count) * size);
        return o;
    };
    p->off_xp = take(p->n * p->t * gh, elem);
    p->off_hp = take(p->n * p->rec_cols, elem);
    if (split_h) {
        p->off_hh = take(p->n * p->h, elem);
        p->off_rh = take(p->n * p->h, elem);
    }
    p->off_hs = take(p->n * p->h, elem);
    if (op.cell == Cell::Lstm) p->off_cs = take(p->n * p->h, elem);
    p->off_len = take(p->n, sizeof(int64_t));
    for (size_t port = 0; port < ctx.num_inputs(); ++port) {
        const size_t bytes = ctx.shape(port).is_static()
                                 ? nn::conversion_bytes(ctx.type(port), checked_num_elements(ctx.shape(port).to_shape()))
                                 : 0;
        p->in_conv.emplace_back(at, bytes);
        at += bytes;
    }
    // Outputs: Y [N, D, T, H] (sequences), then Ho and Co, [N, D, H] or a cell's [N, H].
    const int64_t state = p->n * p->d * p->h;
    if (op.sequence) p->out_conv.emplace_back(0, nn::conversion_bytes(ctx.type(op.x), state * p->t));
    p->out_conv.emplace_back(0, nn::conversion_bytes(ctx.type(op.x), state));
    if (op.cell == Cell::Lstm) p->out_conv.emplace_back(0, nn::conversion_bytes(ctx.type(op.x), state));
    for (auto& o : p->out_conv) {
        o.first = at;
        at += o.second;
    }
    p->scratch_bytes = at;
    return p;
}

// ---- kernel --------------------------------------------------------------------------------------

namespace {

// The activations over an array. f32: vec_math's sigmoid_f32 / tanh_f32 (no libm call; the same
// functions as the Sigmoid and Tanh ops' f32 kernels), compiled for the CPU's vector
// level (cpu_isa.hpp) in one place, the same IEEE operations per element at every level, so the
// same results; f64: libm.
template <class C>
void activate_loop(const Activation& a, C* v, int64_t n) {
    switch (a.kind) {
        case Activation::Kind::Relu:
            for (int64_t j = 0; j < n; ++j) v[j] = v[j] > C(0) ? v[j] : C(0);
            return;
        case Activation::Kind::Sigmoid:
            if constexpr (std::is_same_v<C, float>) {
                for (int64_t j = 0; j < n; ++j) v[j] = vmath::sigmoid_f32(v[j]);
            } else {
                for (int64_t j = 0; j < n; ++j) v[j] = 1.0 / (1.0 + std::exp(-v[j]));
            }
            return;
        case Activation::Kind::Tanh:
            if constexpr (std::is_same_v<C, float>) {
                for (int64_t j = 0; j < n; ++j) v[j] = vmath::tanh_f32(v[j]);
            } else {
                for (int64_t j = 0; j < n; ++j) v[j] = std::tanh(v[j]);
            }
            return;
    }
}

__attribute__((noinline)) void activate_f32(const Activation& a, float* v, int64_t n) {
    cpu::run([&] { activate_loop(a, v, n); });
}

template <class C>
void activate(const Activation& a, C* v, int64_t n) {
    if constexpr (std::is_same_v<C, float>)
        activate_f32(a, v, n);
    else
        activate_loop(a, v, n);
}

template <class C>
void clip_values(C* v, int64_t n, float clip) {
    if (clip <= 0) return;
    const C c = static_cast<C>(clip);
    for (int64_t j = 0; j < n; ++j) v[j] = std::min(std::max(v[j], -c), c);
}

template <class C>
void add_to(C* v, const C* x, int64_t n) {
    for (int64_t j = 0; j < n; ++j) v[j] += x[j];
}

// One LSTM step of one batch row: gates g [4H] (the recurrence, f i c o) += x [4H] (the projection
// with the bias); c and h updated in place.
template <class C>
void lstm_row(const RecurrentPlan& p, C* g, const C* x, const C* peep, C* c, C* h) {
    const int64_t H = p.h;
    add_to(g, x, 4 * H);
    C* f = g;
    C* i = g + H;
    C* cc = g + 2 * H;
    C* o = g + 3 * H;
    if (peep) {  // P: i, o, f
        for (int64_t j = 0; j < H; ++j) {
            i[j] += peep[j] * c[j];
            f[j] += peep[2 * H + j] * c[j];
        }
    }
    clip_values(g, 3 * H, p.clip);
    activate(p.f, f, 2 * H);
    activate(p.g_act, cc, H);
    if (p.input_forget)
        for (int64_t j = 0; j < H; ++j) f[j] = C(1) - i[j];
    for (int64_t j = 0; j < H; ++j) c[j] = f[j] * c[j] + i[j] * cc[j];
    if (peep)
        for (int64_t j = 0; j < H; ++j) o[j] += peep[H + j] * c[j];
    clip_values(o, H, p.clip);
    activate(p.f, o, H);
    std::memcpy(cc, c, static_cast<size_t>(H) * sizeof(C));  // h(C): the cell state unclipped
    activate(p.h_act, cc, H);
    for (int64_t j = 0; j < H; ++j) h[j] = o[j] * cc[j];
}

// GRU z and r: g [2H] (the recurrence) += x [2H], activated in place.
template <class C>
void gru_zr(const RecurrentPlan& p, C* g, const C* x) {
    add_to(g, x, 2 * p.h);
    clip_values(g, 2 * p.h, p.clip);
    activate(p.f, g, 2 * p.h);
}

// GRU h~ given its pre-activation in hh [H], then H = (1 - z) h~ + z H.
template <class C>
void gru_update(const RecurrentPlan& p, const C* z, C* hh, C* h) {
    clip_values(hh, p.h, p.clip);
    activate(p.g_act, hh, p.h);
    for (int64_t j = 0; j < p.h; ++j) h[j] = (C(1) - z[j]) * hh[j] + z[j] * h[j];
}

template <class C>
struct Operands {
    const C *x = nullptr, *h0 = nullptr, *c0 = nullptr, *w = nullptr, *r = nullptr, *b = nullptr, *peep = nullptr;
    C *y = nullptr, *ho = nullptr, *co = nullptr;
};

// out[m, n] = a[m, k] * B_d^T + bias. B_d: the packed direction d of `pr`, or b [n, k] (ld k).
template <class C>
void product(KernelContext& ctx, const Product& pr, int64_t dir, const C* a, const C* b, const C* bias, C* out) {
    const int64_t m = pr.m, n = pr.n, k = pr.k;
    if (m == 0) return;
    if (k == 0) {
        for (int64_t row = 0; row < m; ++row)
            for (int64_t j = 0; j < n; ++j) out[row * n + j] = bias ? bias[j] : C(0);
        return;
    }
    if constexpr (std::is_same_v<C, float>) {
        const nn::GemmOperand bop =
            pr.packed.empty() ? nn::GemmOperand::plain(b, k, true)
                              : nn::GemmOperand::prepacked(pr.packed.data() + static_cast<size_t>(dir) * pr.stride);
        nn::GemmEpilogue epi;
        epi.bias = bias;
        epi.axis = nn::GemmEpilogue::BiasAxis::Column;
        const nn::GemmPlan& g = pr.gemm;
        detail::for_chunks(ctx.pool(), g.tiles(), 1, [&](int64_t begin, int64_t end) {
            void* scratch = ctx.scratch();
            for (int64_t t = begin; t < end; ++t)
                nn::run_gemm_tile(g, t, nn::GemmOperand::plain(a, k), bop, out, n, epi, scratch);
        });
    } else {
        nn::gemm<C>(false, true, m, n, k, a, k, b, k, out, n, false);
        if (bias)
            for (int64_t row = 0; row < m; ++row) add_to(out + row * n, bias, n);
    }
}

template <class C>
void run(KernelContext& ctx, const RecurrentPlan& p, const Operands<C>& io, const int64_t* lengths) {
    auto* base = static_cast<std::byte*>(ctx.scratch());
    C* xp = reinterpret_cast<C*>(base + p.off_xp);
    C* hp = reinterpret_cast<C*>(base + p.off_hp);
    C* hh = reinterpret_cast<C*>(base + p.off_hh);
    C* rh = reinterpret_cast<C*>(base + p.off_rh);
    C* hs = reinterpret_cast<C*>(base + p.off_hs);
    C* cs = reinterpret_cast<C*>(base + p.off_cs);
    const int64_t N = p.n, T = p.t, H = p.h, D = p.d, gh = p.g * p.h, I = p.i;
    const bool split_h = p.cell == Cell::Gru && !p.lbr;
    const size_t row_bytes = static_cast<size_t>(H) * sizeof(C);
    // Rows per chunk of the gate loops: about 16K gate values.
    const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(gh, 1));
    for (int64_t d = 0; d < D; ++d) {
        const bool reverse = p.direction == Direction::Reverse || d == 1;
        const C* bias = io.b ? io.b + d * p.bias : nullptr;
        const C* w = io.w ? io.w + d * gh * I : nullptr;
        const C* r = io.r ? io.r + d * gh * H : nullptr;
        product(ctx, p.proj, d, io.x, w, bias, xp);
        const C* rbh = p.cell == Cell::Gru && p.lbr && bias ? bias + 3 * H : nullptr;
        for (int64_t n = 0; n < N; ++n) {
            std::memcpy(hs + n * H, io.h0 + (n * D + d) * H, row_bytes);
            if (p.cell == Cell::Lstm) std::memcpy(cs + n * H, io.c0 + (n * D + d) * H, row_bytes);
            if (io.y)
                for (int64_t t = lengths[n]; t < T; ++t) std::memset(io.y + ((n * D + d) * T + t) * H, 0, row_bytes);
        }
        if (split_h) std::memset(rh, 0, static_cast<size_t>(N) * row_bytes);
        for (int64_t s = 0; s < T; ++s) {
            product(ctx, p.rec, d, hs, r, static_cast<const C*>(nullptr), hp);
            auto step_of = [&](int64_t n) { return reverse ? lengths[n] - 1 - s : s; };
            auto emit = [&](int64_t n) {
                if (io.y) std::memcpy(io.y + ((n * D + d) * T + step_of(n)) * H, hs + n * H, row_bytes);
            };
            if (split_h) {
                detail::for_chunks(ctx.pool(), N, grain, [&](int64_t begin, int64_t end) {
                    for (int64_t n = begin; n < end; ++n) {
                        if (s >= lengths[n]) continue;
                        C* g = hp + n * p.rec_cols;
                        gru_zr(p, g, xp + (n * T + step_of(n)) * gh);
                        for (int64_t j = 0; j < H; ++j) rh[n * H + j] = g[H + j] * hs[n * H + j];
                    }
                });
                product(ctx, p.rec_h, d, rh, r ? r + 2 * H * H : nullptr, static_cast<const C*>(nullptr), hh);
            }
            detail::for_chunks(ctx.pool(), N, grain, [&](int64_t begin, int64_t end) {
                for (int64_t n = begin; n < end; ++n) {
                    if (s >= lengths[n]) continue;
                    const C* x = xp + (n * T + step_of(n)) * gh;
                    C* g = hp + n * p.rec_cols;
                    C* h = hs + n * H;
                    if (p.cell == Cell::Lstm) {
                        lstm_row(p, g, x, io.peep, cs + n * H, h);
                    } else if (p.cell == Cell::Rnn) {
                        add_to(g, x, H);
                        clip_values(g, H, p.clip);
                        activate(p.f, g, H);
                        std::memcpy(h, g, row_bytes);
                    } else if (split_h) {
                        C* cand = hh + n * H;
                        add_to(cand, x + 2 * H, H);
                        gru_update(p, g, cand, h);
                    } else {  // linear_before_reset: h~ = g(x_h + r (.) (H Rh^T + Rbh))
                        gru_zr(p, g, x);
                        C* cand = g + 2 * H;
                        for (int64_t j = 0; j < H; ++j)
                            cand[j] = x[2 * H + j] + g[H + j] * (cand[j] + (rbh ? rbh[j] : C(0)));
                        gru_update(p, g, cand, h);
                    }
                    emit(n);
                }
            });
        }
        for (int64_t n = 0; n < N; ++n) {
            std::memcpy(io.ho + (n * D + d) * H, hs + n * H, row_bytes);
            if (io.co) std::memcpy(io.co + (n * D + d) * H, cs + n * H, row_bytes);
        }
    }
}

// Reads sequence_lengths into `out` (T for every row when the op has none); a value outside
// [0, T] is an error, so no step reads past X or writes past Y.
void read_lengths(const KernelContext& ctx, const RecurrentPlan& p, int64_t* out) {
    const size_t port = p.op.lengths;
    if (port == kNoPort || port >= ctx.num_inputs()) {
        std::fill(out, out + p.n, p.t);
        return;
    }
    const Tensor& t = ctx.input(port);
    IRLITE_CHECK(t.num_elements() == p.n, ErrorKind::ShapeRule, "kernel-input-mismatch",
                 "sequence_lengths disagrees with the plan");
    for (int64_t n = 0; n < p.n; ++n) {
        const int64_t v = t.type() == ElementType::i32 ? t.data<int32_t>()[n] : t.data<int64_t>()[n];
        if (v < 0 || v > p.t)
            throw ctx.input_error(port, ErrorKind::Value, "sequence-length-out-of-range",
                                  str(p.op.name, " sequence_lengths[", n, "] = ", v, " is outside [0, ", p.t,
                                      "] (the sequence length T of X)"));
        out[n] = v;
    }
}

template <class C>
void compute_as(KernelContext& ctx, const RecurrentPlan& p) {
    const RecurrentOp& op = p.op;
    // The ComputeIn/ComputeOut objects are views (no allocation) when the tensors are of type C.
    // Converted copies go to the scratch the plan set aside (prepare: in_conv, out_conv).
    const auto in_space = [&](size_t port) {
        return port < p.in_conv.size() ? p.space(ctx, p.in_conv[port]) : nn::ScratchSpace{};
    };
    nn::ComputeIn<C> x(ctx.input(op.x), in_space(op.x)), h0(ctx.input(op.h), in_space(op.h));
    std::optional<nn::ComputeIn<C>> c0, w, r, b, peep;
    if (op.c != kNoPort) c0.emplace(ctx.input(op.c), in_space(op.c));
    if (p.proj.packed.empty() && p.i > 0) w.emplace(ctx.input(op.w), in_space(op.w));
    if (p.rec.packed.empty()) r.emplace(ctx.input(op.r), in_space(op.r));
    if (p.has_b) b.emplace(ctx.input(op.b), in_space(op.b));
    if (p.has_p) peep.emplace(ctx.input(op.p), in_space(op.p));
    std::optional<nn::ComputeOut<C>> outs[3];
    const size_t num_outputs = std::min<size_t>(ctx.num_outputs(), 3);
    for (size_t o = 0; o < num_outputs; ++o)
        outs[o].emplace(ctx.output(o), o < p.out_conv.size() ? p.space(ctx, p.out_conv[o]) : nn::ScratchSpace{});
    Operands<C> io;
    io.x = x.data();
    io.h0 = h0.data();
    io.c0 = c0 ? c0->data() : nullptr;
    io.w = w ? w->data() : nullptr;
    io.r = r ? r->data() : nullptr;
    io.b = b ? b->data() : nullptr;
    io.peep = peep ? peep->data() : nullptr;
    size_t next = 0;
    IRLITE_CHECK(num_outputs == static_cast<size_t>((op.sequence ? 2 : 1) + (op.cell == Cell::Lstm ? 1 : 0)),
                 ErrorKind::ShapeRule, "kernel-output-mismatch", op.name, " has the wrong number of outputs");
    if (op.sequence) io.y = outs[next++]->data();
    io.ho = outs[next++]->data();
    if (op.cell == Cell::Lstm) io.co = outs[next++]->data();
    auto* lengths = reinterpret_cast<int64_t*>(static_cast<std::byte*>(ctx.scratch()) + p.off_len);
    read_lengths(ctx, p, lengths);
    run<C>(ctx, p, io, lengths);
    for (size_t o = 0; o < num_outputs; ++o) outs[o]->commit();
}

}  // namespace

void compute(KernelContext& ctx) {
    const auto& p = ctx.plan<RecurrentPlan>();
    if (p.f32)
        compute_as<float>(ctx, p);
    else
        compute_as<double>(ctx, p);
}

OpDef make_recurrent_op(const RecurrentOp& op, const char* type, int version, std::vector<std::string> roles,
                        int min_inputs) {
    OpDef d;
    d.type = type;
    d.version = version;
    d.input_roles = std::move(roles);
    d.min_inputs = min_inputs;
    d.num_outputs = (op.sequence ? 2 : 1) + (op.cell == Cell::Lstm ? 1 : 0);
    d.parse_attrs = [op](const AttrReader& r) { return parse_attrs(r, op); };
    d.infer = [op](const InferContext& ctx) { return infer(ctx, op); };
    d.prepare = [op](const InferContext& ctx) { return prepare(ctx, op); };
    d.compute = compute;
    return d;
}

}  // namespace irlite::rnn
