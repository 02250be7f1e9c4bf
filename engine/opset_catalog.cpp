// The catalog's rows. Written by hand from OpenVINO's opset pages and opsetN_tbl.hpp lists
// (see the header); keep them sorted by type, then version.
#include "engine/opset_catalog.hpp"

#include <algorithm>

#include "engine/ascii_text.hpp"
#include "irlite/error.hpp"

namespace irlite {
namespace {

// {type, version, first opset, last opset}
const std::vector<OpsetCatalogEntry> kCatalog = {
    {"Abs", 1, 1, 16}, {"Acos", 1, 1, 16}, {"Acosh", 3, 4, 16}, {"AdaptiveAvgPool", 8, 8, 16},
    {"AdaptiveMaxPool", 8, 8, 16}, {"Add", 1, 1, 16}, {"Asin", 1, 1, 16}, {"Asinh", 3, 4, 16},
    {"Assign", 3, 3, 5}, {"Assign", 6, 6, 16}, {"Atan", 1, 1, 16}, {"Atanh", 3, 4, 16},
    {"AvgPool", 1, 1, 13}, {"AvgPool", 14, 14, 15}, {"AvgPool", 16, 16, 16},
    {"BatchNormInference", 1, 1, 4}, {"BatchNormInference", 5, 5, 16}, {"BatchToSpace", 2, 2, 16},
    {"BinaryConvolution", 1, 1, 16}, {"BitwiseAnd", 13, 13, 16}, {"BitwiseLeftShift", 15, 15, 16},
    {"BitwiseNot", 13, 13, 16}, {"BitwiseOr", 13, 13, 16}, {"BitwiseRightShift", 15, 15, 16},
    {"BitwiseXor", 13, 13, 16}, {"Broadcast", 1, 1, 2}, {"Broadcast", 3, 3, 16}, {"Bucketize", 3, 3, 16},
    {"Ceiling", 1, 1, 16}, {"Clamp", 1, 1, 16}, {"Col2Im", 15, 15, 16}, {"Concat", 1, 1, 16},
    {"Const", 1, 1, 16}, {"Convert", 1, 1, 16}, {"ConvertLike", 1, 1, 16},
    {"ConvertPromoteTypes", 14, 14, 16}, {"Convolution", 1, 1, 16}, {"ConvolutionBackpropData", 1, 1, 16},
    {"Cos", 1, 1, 16}, {"Cosh", 1, 1, 16}, {"CTCGreedyDecoder", 1, 1, 16},
    {"CTCGreedyDecoderSeqLen", 6, 6, 16}, {"CTCLoss", 4, 4, 16}, {"CumSum", 3, 3, 16},
    {"DeformableConvolution", 1, 1, 7}, {"DeformableConvolution", 8, 8, 16},
    {"DeformablePSROIPooling", 1, 1, 16}, {"DepthToSpace", 1, 1, 16}, {"DetectionOutput", 1, 1, 7},
    {"DetectionOutput", 8, 8, 16}, {"DFT", 7, 7, 16}, {"Divide", 1, 1, 16}, {"Einsum", 7, 7, 16},
    {"Elu", 1, 1, 16}, {"EmbeddingBagOffsets", 15, 15, 16}, {"EmbeddingBagOffsetsSum", 3, 3, 16},
    {"EmbeddingBagPacked", 15, 15, 16}, {"EmbeddingBagPackedSum", 3, 3, 16},
    {"EmbeddingSegmentsSum", 3, 3, 16}, {"Equal", 1, 1, 16}, {"Erf", 1, 1, 16}, {"Exp", 1, 1, 16},
    {"ExperimentalDetectronDetectionOutput", 6, 6, 16},
    {"ExperimentalDetectronGenerateProposalsSingleImage", 6, 6, 16},
    {"ExperimentalDetectronPriorGridGenerator", 6, 6, 16},
    {"ExperimentalDetectronROIFeatureExtractor", 6, 6, 16}, {"ExperimentalDetectronTopKROIs", 6, 6, 16},
    {"ExtractImagePatches", 3, 3, 16}, {"Eye", 9, 9, 16}, {"FakeConvert", 13, 13, 16},
    {"FakeQuantize", 1, 1, 16}, {"Floor", 1, 1, 16}, {"FloorMod", 1, 1, 16}, {"Gather", 1, 1, 6},
    {"Gather", 7, 7, 7}, {"Gather", 8, 8, 16}, {"GatherElements", 6, 6, 16}, {"GatherND", 5, 5, 7},
    {"GatherND", 8, 8, 16}, {"GatherTree", 1, 1, 16}, {"Gelu", 2, 2, 6}, {"Gelu", 7, 7, 16},
    {"GenerateProposals", 9, 9, 16}, {"Greater", 1, 1, 16}, {"GreaterEqual", 1, 1, 16},
    {"GridSample", 9, 9, 16}, {"GRN", 1, 1, 16}, {"GroupConvolution", 1, 1, 16},
    {"GroupConvolutionBackpropData", 1, 1, 16}, {"GroupNormalization", 12, 12, 16}, {"GRUCell", 3, 3, 16},
    {"GRUSequence", 5, 5, 16}, {"HardSigmoid", 1, 1, 16}, {"HSigmoid", 5, 5, 16}, {"HSwish", 4, 4, 16},
    {"I420toBGR", 8, 8, 16}, {"I420toRGB", 8, 8, 16}, {"Identity", 16, 16, 16}, {"IDFT", 7, 7, 16},
    {"If", 8, 8, 16}, {"Interpolate", 1, 1, 3}, {"Interpolate", 4, 4, 10}, {"Interpolate", 11, 11, 16},
    {"Inverse", 14, 14, 16}, {"IRDFT", 9, 9, 16}, {"IsFinite", 10, 10, 16}, {"IsInf", 10, 10, 16},
    {"IsNaN", 10, 10, 16}, {"ISTFT", 16, 16, 16}, {"Less", 1, 1, 16}, {"LessEqual", 1, 1, 16},
    {"Log", 1, 1, 16}, {"LogicalAnd", 1, 1, 16}, {"LogicalNot", 1, 1, 16}, {"LogicalOr", 1, 1, 16},
    {"LogicalXor", 1, 1, 16}, {"LogSoftmax", 5, 5, 16}, {"Loop", 5, 5, 16}, {"LRN", 1, 1, 16},
    {"LSTMCell", 1, 1, 3}, {"LSTMCell", 4, 4, 16}, {"LSTMSequence", 1, 1, 3}, {"LSTMSequence", 5, 5, 16},
    {"MatMul", 1, 1, 16}, {"MatrixNms", 8, 8, 16}, {"Maximum", 1, 1, 16}, {"MaxPool", 1, 1, 7},
    {"MaxPool", 8, 8, 13}, {"MaxPool", 14, 14, 16}, {"Minimum", 1, 1, 16}, {"Mish", 4, 4, 16},
    {"Mod", 1, 1, 16}, {"MulticlassNms", 8, 8, 8}, {"MulticlassNms", 9, 9, 16},
    {"Multinomial", 13, 13, 16}, {"Multiply", 1, 1, 16}, {"MVN", 1, 2, 5}, {"MVN", 6, 6, 16},
    {"Negative", 1, 1, 16}, {"NMSRotated", 13, 13, 16}, {"NonMaxSuppression", 1, 1, 2},
    {"NonMaxSuppression", 3, 3, 3}, {"NonMaxSuppression", 4, 4, 4}, {"NonMaxSuppression", 5, 5, 8},
    {"NonMaxSuppression", 9, 9, 16}, {"NonZero", 3, 3, 16}, {"NormalizeL2", 1, 1, 16},
    {"NotEqual", 1, 1, 16}, {"NV12toBGR", 8, 8, 16}, {"NV12toRGB", 8, 8, 16}, {"OneHot", 1, 1, 15},
    {"OneHot", 16, 16, 16}, {"Pad", 1, 1, 11}, {"Pad", 12, 12, 16}, {"Parameter", 1, 1, 16},
    {"Power", 1, 1, 16}, {"PRelu", 1, 1, 16}, {"PriorBox", 1, 1, 7}, {"PriorBox", 8, 8, 16},
    {"PriorBoxClustered", 1, 1, 16}, {"Proposal", 1, 1, 3}, {"Proposal", 4, 4, 16},
    {"PSROIPooling", 1, 1, 16}, {"RandomUniform", 8, 8, 16}, {"Range", 1, 1, 3}, {"Range", 4, 4, 16},
    {"RDFT", 9, 9, 16}, {"ReadValue", 3, 3, 5}, {"ReadValue", 6, 6, 16}, {"ReduceL1", 4, 4, 16},
    {"ReduceL2", 4, 4, 16}, {"ReduceLogicalAnd", 1, 1, 16}, {"ReduceLogicalOr", 1, 1, 16},
    {"ReduceMax", 1, 1, 16}, {"ReduceMean", 1, 1, 16}, {"ReduceMin", 1, 1, 16}, {"ReduceProd", 1, 1, 16},
    {"ReduceSum", 1, 1, 16}, {"RegionYolo", 1, 1, 16}, {"Relu", 1, 1, 16}, {"ReorgYolo", 1, 2, 16},
    {"Reshape", 1, 1, 16}, {"Result", 1, 1, 16}, {"Reverse", 1, 1, 3}, {"ReverseSequence", 1, 1, 16},
    {"RNNCell", 3, 1, 1}, {"RNNCell", 3, 3, 16}, {"RNNSequence", 5, 5, 16}, {"ROIAlign", 3, 3, 8},
    {"ROIAlign", 9, 9, 16}, {"ROIAlignRotated", 15, 15, 16}, {"ROIPooling", 1, 2, 16}, {"Roll", 7, 7, 16},
    {"Round", 5, 5, 16}, {"ScaledDotProductAttention", 13, 13, 16}, {"ScatterElementsUpdate", 3, 3, 11},
    {"ScatterElementsUpdate", 12, 12, 16}, {"ScatterNDUpdate", 3, 4, 14}, {"ScatterNDUpdate", 15, 15, 16},
    {"ScatterUpdate", 3, 3, 16}, {"SearchSorted", 15, 15, 16}, {"SegmentMax", 16, 16, 16},
    {"Select", 1, 1, 16}, {"Selu", 1, 1, 16}, {"ShapeOf", 1, 1, 2}, {"ShapeOf", 3, 3, 16},
    {"ShuffleChannels", 1, 1, 1}, {"ShuffleChannels", 1, 3, 16}, {"Sigmoid", 1, 1, 16}, {"Sign", 1, 1, 16},
    {"Sin", 1, 1, 16}, {"Sinh", 1, 1, 16}, {"Slice", 8, 8, 16}, {"SliceScatter", 15, 15, 16},
    {"Softmax", 1, 1, 7}, {"Softmax", 8, 8, 16}, {"SoftPlus", 4, 4, 16}, {"SoftSign", 9, 9, 16},
    {"SpaceToBatch", 2, 2, 16}, {"SpaceToDepth", 1, 1, 16}, {"SparseFillEmptyRows", 16, 16, 16},
    {"Split", 1, 1, 16}, {"Sqrt", 1, 1, 16}, {"SquaredDifference", 1, 1, 16}, {"Squeeze", 1, 1, 14},
    {"Squeeze", 15, 15, 16}, {"STFT", 15, 15, 16}, {"StridedSlice", 1, 1, 16},
    {"StringTensorPack", 15, 15, 16}, {"StringTensorUnpack", 15, 15, 16}, {"Subtract", 1, 1, 16},
    {"Swish", 4, 4, 16}, {"Tan", 1, 1, 16}, {"Tanh", 1, 1, 16}, {"TensorIterator", 1, 1, 16},
    {"Tile", 1, 1, 16}, {"TopK", 1, 1, 2}, {"TopK", 3, 3, 10}, {"TopK", 11, 11, 16},
    {"Transpose", 1, 1, 16}, {"Unique", 10, 10, 16}, {"Unsqueeze", 1, 1, 16}, {"VariadicSplit", 1, 1, 16},
    {"Xor", 1, 1, 1},
};

const std::vector<OpsetDeviation> kDeviations = {
    // OpenVINO's ScatterNDUpdate-3 is declared in opset4 (and written as version="opset4"); the
    // project's generated conformance corpus writes it as opset3.
    {"ScatterNDUpdate", 3, 3, 3, "the generated conformance corpus writes ScatterNDUpdate-3 as opset3"},
};

// canonical_op_type of every row, computed once.
const std::vector<std::string>& catalog_keys() {
    static const std::vector<std::string> keys = [] {
        std::vector<std::string> k;
        for (const auto& e : kCatalog) k.push_back(canonical_op_type(e.type));
        return k;
    }();
    return keys;
}

std::string range_text(int first, int last) {
    return first == last ? str("opset", first) : str("opset", first, "..opset", last);
}

}  // namespace

const std::vector<OpsetCatalogEntry>& opset_catalog() { return kCatalog; }

const OpsetCatalogEntry* find_catalog_entry(std::string_view type, int opset) {
    const std::string key = canonical_op_type(type);
    const auto& keys = catalog_keys();
    for (size_t i = 0; i < kCatalog.size(); ++i)
        if (kCatalog[i].first_opset <= opset && opset <= kCatalog[i].last_opset && keys[i] == key) return &kCatalog[i];
    return nullptr;
}

const std::vector<OpsetDeviation>& opset_deviations() { return kDeviations; }

const OpsetDeviation* find_opset_deviation(std::string_view type, int version, int opset) {
    const std::string key = canonical_op_type(type);
    for (const OpsetDeviation& d : kDeviations)
        if (d.version == version && d.first_opset <= opset && opset <= d.last_opset && canonical_op_type(d.type) == key)
            return &d;
    return nullptr;
}

std::optional<int> lookup_opset(std::string_view type_name, std::string_view version_text) {
    const std::optional<int> opset = parse_opset(version_text);
    const std::string type = canonical_op_type(type_name);
    if (opset == 1 && (type == "mvn" || type == "roipooling" || type == "reorgyolo")) return 2;
    const std::string version = canonical_op_type(version_text);
    const bool legacy_opset6_type = type.rfind("experimentaldetectron", 0) == 0 || type == "grucell" ||
                                    type == "rnncell" || type == "proposal";
    if (!opset && legacy_opset6_type && (version == "experimental" || version == "extension")) return 6;
    return opset;
}

std::vector<const OpsetCatalogEntry*> catalog_entries(std::string_view type) {
    const std::string key = canonical_op_type(type);
    const auto& keys = catalog_keys();
    std::vector<const OpsetCatalogEntry*> out;
    for (size_t i = 0; i < kCatalog.size(); ++i)
        if (keys[i] == key) out.push_back(&kCatalog[i]);
    return out;
}

std::string describe_catalog_entries(const std::vector<const OpsetCatalogEntry*>& entries) {
    std::string out;
    for (size_t i = 0; i < entries.size(); ++i) {
        const OpsetCatalogEntry& e = *entries[i];
        // RNNCell-3 and ShuffleChannels-1 have two runs: print the version once, then both runs.
        const bool same_as_previous = i > 0 && entries[i - 1]->version == e.version;
        if (same_as_previous) {
            out += str(", ", range_text(e.first_opset, e.last_opset));
        } else {
            out += str(out.empty() ? "" : "; ", e.type, "-", e.version, " in ", range_text(e.first_opset, e.last_opset));
        }
    }
    return out;
}

namespace {

// Levenshtein distance, or `limit` when it is known to be at least `limit`.
size_t edit_distance(const std::string& a, const std::string& b, size_t limit) {
    if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) >= limit) return limit;
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
            diagonal = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
        }
    }
    return std::min(row[b.size()], limit);
}

}  // namespace

// The catalog's op type nearest to `type` (edit distance at most 2, ignoring case), or "".
std::string closest_op_type(std::string_view type) {
    const std::string key = canonical_op_type(type);
    std::string best;
    size_t best_distance = 3;
    for (const OpsetCatalogEntry& e : opset_catalog()) {
        const std::string candidate = canonical_op_type(e.type);
        const size_t d = edit_distance(key, candidate, best_distance);
        if (d < best_distance) {
            best_distance = d;
            best = e.type;
        }
    }
    return best;
}

using text::ascii_lower;
using text::lower;
using text::trim;

std::string canonical_op_type(std::string_view type) {
    std::string t = lower(type);
    if (t == "constant") return "const";
    return t;  // PReLU/PRelu, ReLU/Relu, SoftMax/Softmax differ only in case
}

bool op_type_is(std::string_view type, std::string_view key) {
    const auto equal_ignoring_case = [](std::string_view a, std::string_view b) {
        if (a.size() != b.size()) return false;
        for (size_t i = 0; i < a.size(); ++i)
            if (ascii_lower(a[i]) != b[i]) return false;
        return true;
    };
    return equal_ignoring_case(type, key) || (key == "const" && equal_ignoring_case(type, "constant"));
}

std::optional<int> parse_opset(std::string_view version) {
    const std::string v = lower(trim(version));
    if (v.rfind("opset", 0) != 0 || v.size() == 5 || v.size() > 8) return std::nullopt;
    int n = 0;
    for (size_t i = 5; i < v.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(v[i]))) return std::nullopt;
        n = n * 10 + (v[i] - '0');
    }
    if (n < 1) return std::nullopt;
    return n;
}

}  // namespace irlite
