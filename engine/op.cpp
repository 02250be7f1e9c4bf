#include "engine/op.hpp"

#include "engine/ascii_text.hpp"
#include "engine/opset_catalog.hpp"
#include "engine/tensor_size.hpp"
#include "engine/thread_pool.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <new>

namespace irlite {
namespace {

using text::ascii_lower;
using text::lower;
using text::trim;

// Whole-string integer parse; false on junk, empty or overflow.
bool parse_i64(std::string_view text, int64_t& out) {
    const std::string t = trim(text);
    if (t.empty()) return false;
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(t.c_str(), &end, 10);
    if (errno == ERANGE || end != t.c_str() + t.size()) return false;
    out = v;
    return true;
}

bool parse_f64(std::string_view text, double& out) {
    const std::string t = trim(text);
    if (t.empty()) return false;
    char* end = nullptr;
    out = std::strtod(t.c_str(), &end);
    return end == t.c_str() + t.size();
}

std::vector<std::string> split_fields(std::string_view text) {
    std::vector<std::string> out;
    if (trim(text).empty()) return out;
    size_t start = 0;
    while (true) {
        const size_t comma = text.find(',', start);
        out.push_back(trim(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

}  // namespace

// ---- AttrReader ------------------------------------------------------------------------------

const std::string* AttrReader::find(std::string_view name) const {
    for (const auto& a : layer_.attributes)
        if (a.name == name) return &a.value;
    return nullptr;
}

bool AttrReader::has(std::string_view name) const { return find(name) != nullptr; }

void AttrReader::invalid(std::string_view name, const std::string& value, std::string_view why) const {
    // A value of megabytes is not repeated whole: its start and its length say enough.
    constexpr size_t kShown = 100;
    const std::string shown =
        value.size() <= kShown ? value : str(value.substr(0, kShown), "...\" (", value.size(), " characters)");
    throw Error(ErrorKind::Attribute, "attribute-invalid",
                str("attribute '", name, "' = \"", shown, value.size() <= kShown ? "\"" : "", " is invalid: ", why));
}

std::string AttrReader::get_string(std::string_view name) const {
    const std::string* v = find(name);
    if (!v) throw Error(ErrorKind::Attribute, "attribute-missing", str("required attribute '", name, "' is missing"));
    return *v;
}

std::string AttrReader::get_string(std::string_view name, std::string_view fallback) const {
    const std::string* v = find(name);
    return v ? *v : std::string(fallback);
}

int64_t AttrReader::get_i64(std::string_view name) const {
    const std::string v = get_string(name);
    int64_t out;
    if (!parse_i64(v, out)) invalid(name, v, "expected an integer");
    return out;
}

int64_t AttrReader::get_i64(std::string_view name, int64_t fallback) const {
    return has(name) ? get_i64(name) : fallback;
}

double AttrReader::get_f64(std::string_view name) const {
    const std::string v = get_string(name);
    double out;
    if (!parse_f64(v, out)) invalid(name, v, "expected a number");
    return out;
}

double AttrReader::get_f64(std::string_view name, double fallback) const {
    return has(name) ? get_f64(name) : fallback;
}

bool AttrReader::get_bool(std::string_view name, bool fallback) const {
    const std::string* v = find(name);
    if (!v) return fallback;
    const std::string l = lower(trim(*v));
    if (l == "true" || l == "1") return true;
    if (l == "false" || l == "0") return false;
    invalid(name, *v, "expected true, false, 1 or 0");
}

std::vector<int64_t> AttrReader::get_i64_list(std::string_view name) const {
    const std::string v = get_string(name);
    std::vector<int64_t> out;
    for (const auto& field : split_fields(v)) {
        int64_t x;
        if (!parse_i64(field, x)) invalid(name, v, "expected a comma-separated list of integers");
        out.push_back(x);
    }
    return out;
}

std::vector<int64_t> AttrReader::get_i64_list(std::string_view name, std::vector<int64_t> fallback) const {
    return has(name) ? get_i64_list(name) : fallback;
}

std::vector<double> AttrReader::get_f64_list(std::string_view name) const {
    const std::string v = get_string(name);
    std::vector<double> out;
    for (const auto& field : split_fields(v)) {
        double x;
        if (!parse_f64(field, x)) invalid(name, v, "expected a comma-separated list of numbers");
        out.push_back(x);
    }
    return out;
}

ElementType AttrReader::get_element_type(std::string_view name) const {
    const std::string v = get_string(name);
    try {
        return parse_element_type(trim(v));
    } catch (const Error& e) {
        throw Error(e.kind(), e.code(), str("attribute '", name, "': ", e.message()));
    }
}

std::string AttrReader::get_enum(std::string_view name, const std::vector<std::string>& allowed,
                                 std::string_view fallback) const {
    const std::string* v = find(name);
    if (!v) return std::string(fallback);
    const std::string l = lower(trim(*v));
    for (const auto& a : allowed)
        if (l == lower(a)) return a;
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    invalid(name, *v, "expected one of " + list);
}

// ---- contexts --------------------------------------------------------------------------------

namespace {
Error located_at_input(const OpDef& def, size_t i, ErrorKind kind, std::string code, std::string message) {
    Location where;
    where.port = static_cast<int>(i);
    where.port_role = def.input_role(i);
    return Error(kind, std::move(code), std::move(message), where);
}
}  // namespace

Error InferContext::input_error(size_t i, ErrorKind kind, std::string code, std::string message) const {
    return located_at_input(def_, i, kind, std::move(code), std::move(message));
}

KernelContext::~KernelContext() { std::free(own_scratch_); }

const OpPlan* KernelContext::ensure_plan() const {
    if (plan_) return plan_;
    IRLITE_CHECK(def_.prepare != nullptr, ErrorKind::Value, "internal-error", def_.type, " has no prepare step");
    std::vector<InferContext::Input> in;
    in.reserve(num_inputs_);
    for (size_t i = 0; i < num_inputs_; ++i) {
        const Tensor& t = input(i);
        in.push_back({t.type(), PartialShape(t.shape()), &t});
    }
    const InferContext ctx(def_, attrs_, std::move(in), static_cast<int>(num_outputs_));
    own_plan_ = def_.prepare(ctx);
    plan_ = own_plan_.get();
    return plan_;
}

void* KernelContext::scratch() const {
    if (scratch_) return pool_ ? static_cast<std::byte*>(scratch_) + scratch_stride_ * static_cast<size_t>(pool_->current_slot()) : scratch_;
    const size_t bytes = ensure_plan()->scratch_bytes;
    if (bytes == 0) return nullptr;
    own_scratch_ = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!own_scratch_) throw std::bad_alloc();
    scratch_ = own_scratch_;
    return scratch_;
}

namespace {

// Bytes of a data-dependent output of `type` and dims[0..rank), refused as every tensor irlite
// makes is (tensor_size.hpp: size-overflow, tensor-too-large), without allocating when it fits.
size_t dynamic_output_bytes(ElementType type, const int64_t* dims, size_t rank, size_t output) {
    IRLITE_CHECK(is_storable(type) && !is_packed(type), ErrorKind::Value, "internal-error", "output ", output,
                 ": a data-dependent output of ", to_string(type), " cannot be made");
    uint64_t bytes = element_size(type);
    bool overflow = false;
    for (size_t d = 0; d < rank; ++d) {
        IRLITE_CHECK(dims[d] >= 0, ErrorKind::Value, "internal-error", "output ", output, " was given dim ", dims[d]);
        overflow = overflow || __builtin_mul_overflow(bytes, static_cast<uint64_t>(dims[d]), &bytes);
    }
    if (overflow || bytes > max_tensor_bytes()) {
        check_tensor_fits(type, Shape(dims, dims + rank), static_cast<int>(output));  // throws the usual error
        throw Error(ErrorKind::Limit, "size-overflow", str("output ", output, " needs more bytes than fit in 64 bits"));
    }
    return static_cast<size_t>(bytes);
}

}  // namespace

Tensor& KernelContext::make_dynamic_output(size_t i, ElementType type, const int64_t* dims, size_t rank) {
    IRLITE_CHECK(i < num_outputs_ && i < 64 && def_.data_dependent_outputs, ErrorKind::Value, "internal-error",
                 def_.type, " made output ", i, " with dynamic_output (it has ", num_outputs_,
                 def_.data_dependent_outputs ? " outputs)" : " outputs, not data-dependent)");
    const size_t bytes = dynamic_output_bytes(type, dims, rank, i);
    Tensor& out = outputs_[i];
    dynamic_made_ |= uint64_t{1} << i;
    if (!dynamic_buffers_) {
        out = Tensor::uninitialized(type, Shape(dims, dims + rank));
        return out;
    }
    DynamicOutputBuffer& buffer = dynamic_buffers_[i];
    if (!buffer.memory.valid() || buffer.capacity() < bytes) {
        // The old bytes go first (unless a view handed out still holds them); out keeps its shape's
        // storage.
        out.view_into(Tensor(), type, dims, 0);
        buffer.memory = Tensor();
        buffer.memory = Tensor::uninitialized(ElementType::u8, Shape{static_cast<int64_t>(bytes)});
    }
    out.view_into(buffer.memory, type, dims, rank);
    return out;
}

Error KernelContext::input_error(size_t i, ErrorKind kind, std::string code, std::string message) const {
    return located_at_input(def_, i, kind, std::move(code), std::move(message));
}

const Tensor* VariableStore::find(const std::string& id) const {
    auto it = values_.find(id);
    return it == values_.end() ? nullptr : &it->second;
}

// ---- registry --------------------------------------------------------------------------------

std::string OpDef::input_role(size_t i) const {
    if (i < input_roles.size() && !(variadic_inputs && i + 1 >= input_roles.size())) return input_roles[i];
    if (variadic_inputs && !input_roles.empty()) return input_roles.back() + std::to_string(i + 1 - input_roles.size());
    return {};
}

std::string OpDef::opset_range() const {
    if (last_opset >= kLatestOpset) return str("opset", first_opset, "+");
    if (first_opset == last_opset) return str("opset", first_opset);
    return str("opset", first_opset, "..opset", last_opset);
}

namespace {

// The opsets OpenVINO's catalog gives `def`'s (type, version). An op type the catalog knows takes
// its range from there, so that the op table and `irlite ops` cannot drift from OpenVINO's opset
// lists; a range written in the OpDef (anything but the default opset1..latest) must agree with it.
// A type the catalog does not know (tests' made-up ops) keeps the range it states.
void derive_opset_range(OpDef& def) {
    const auto rows = catalog_entries(def.type);
    if (rows.empty()) return;
    const bool states_range = def.first_opset != 1 || def.last_opset != kLatestOpset;
    const OpsetCatalogEntry* row = nullptr;
    for (const OpsetCatalogEntry* r : rows)
        if (r->version == def.version) {
            // A version with two runs of opsets (ShuffleChannels-1: opset1, then opset3 on) is
            // registered once per run, each definition stating its run.
            if (row && !states_range)
                throw Error(ErrorKind::Usage, "op-not-in-catalog",
                            str("op ", def.type, "-", def.version, " has two runs of opsets in the catalog (",
                                describe_catalog_entries(rows), "); register one definition per run, each stating it"));
            if (!row || (states_range && r->last_opset == def.last_opset)) row = r;
        }
    if (!row)
        throw Error(ErrorKind::Usage, "op-not-in-catalog",
                    str("op ", def.type, "-", def.version, " is not an OpenVINO op version; OpenVINO has ",
                        describe_catalog_entries(rows)));
    // A listed deviation widens the run by the opsets just before it (ScatterNDUpdate-3 in opset3).
    int first = row->first_opset;
    while (first > 1 && find_opset_deviation(def.type, def.version, first - 1)) --first;
    if (states_range && (def.first_opset != first || def.last_opset != row->last_opset)) {
        OpDef catalog = def;
        catalog.first_opset = first;
        catalog.last_opset = row->last_opset;
        throw Error(ErrorKind::Usage, "op-not-in-catalog",
                    str("op ", def.type, "-", def.version, " claims ", def.opset_range(), ", but OpenVINO's opsets give it ",
                        catalog.opset_range()));
    }
    def.first_opset = first;
    def.last_opset = row->last_opset;
}

}  // namespace

void OpRegistry::add(OpDef def) {
    derive_opset_range(def);
    if (def.data_dependent_outputs && !def.allocates_outputs)
        throw Error(ErrorKind::Usage, "op-definition-invalid",
                    str("op ", def.type, "-", def.version, " has data_dependent_outputs but not allocates_outputs"));
    std::string key = canonical_op_type(def.type);
    std::vector<size_t>& same_type = by_type_[key];
    for (const size_t i : same_type) {
        const OpDef& d = defs_[i];
        if (d.first_opset <= def.last_opset && def.first_opset <= d.last_opset)
            throw Error(ErrorKind::Usage, "duplicate-op",
                        str("op ", def.type, "-", def.version, " (", def.opset_range(), ") overlaps ", d.type,
                            "-", d.version, " (", d.opset_range(), ")"));
    }
    same_type.push_back(defs_.size());
    defs_.push_back(std::move(def));
}

const OpDef* OpRegistry::find(std::string_view type, int opset) const {
    const auto it = by_type_.find(canonical_op_type(type));
    if (it == by_type_.end()) return nullptr;
    for (const size_t i : it->second)
        if (defs_[i].first_opset <= opset && opset <= defs_[i].last_opset) return &defs_[i];
    return nullptr;
}

std::vector<const OpDef*> OpRegistry::find_all(std::string_view type) const {
    std::vector<const OpDef*> out;
    const auto it = by_type_.find(canonical_op_type(type));
    if (it != by_type_.end())
        for (const size_t i : it->second) out.push_back(&defs_[i]);
    return out;
}

}  // namespace irlite
