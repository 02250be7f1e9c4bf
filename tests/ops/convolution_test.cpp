// Convolution-1, GroupConvolution-1, ConvolutionBackpropData-1, GroupConvolutionBackpropData-1:
// shape rules (spec examples, auto_pad, dynamic dims), values against plain-loop references for
// 1-D/2-D/3-D, strided, dilated, padded, grouped, depthwise and chunked cases, and errors.
#include "kernels/detail/cpu_isa.hpp"
#include "irlite/irlite.hpp"
#include "ir_builder.hpp"
#include "nn_test_util.hpp"
#include "run_one_input.hpp"

namespace irlite::testing {
namespace {

std::string join(const std::vector<int64_t>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s;
}

// The window attributes of a row; pads_begin of `ref_pads` is what auto_pad must resolve to.
struct Window {
    std::vector<int64_t> strides{}, dilations{}, pads_begin{}, pads_end{};
    std::string auto_pad = "explicit";
    std::vector<int64_t> output_padding{};  // backprop only
};

std::vector<IrAttribute> attributes_of(const Window& w) {
    std::vector<IrAttribute> a = {attr("strides", join(w.strides)), attr("auto_pad", w.auto_pad)};
    if (!w.dilations.empty()) a.push_back(attr("dilations", join(w.dilations)));
    const std::vector<int64_t> zeros(w.strides.size(), 0);
    a.push_back(attr("pads_begin", join(w.pads_begin.empty() ? zeros : w.pads_begin)));
    a.push_back(attr("pads_end", join(w.pads_end.empty() ? zeros : w.pads_end)));
    if (!w.output_padding.empty()) a.push_back(attr("output_padding", join(w.output_padding)));
    return a;
}

int64_t at(const std::vector<int64_t>& v, size_t i, int64_t fallback) { return v.empty() ? fallback : v[i]; }

// Forward: out[n][g*CO + co][o] = sum x[n][g*CI + ci][o*s - p + k*d] * w[g][co][ci][k].
std::vector<double> forward_reference(const Tensor& x, const Tensor& w, bool group, const Shape& out_shape,
                                      const Window& win, const std::vector<int64_t>& pads) {
    const Shape& xs = x.shape();
    Shape ws = w.shape();
    if (!group) ws.insert(ws.begin(), 1);
    const int64_t cout_g = ws[1], cin_g = ws[2];
    const Shape kernel(ws.begin() + 3, ws.end());
    const size_t rank = kernel.size();
    const std::vector<double> xv = to_doubles(x), wv = to_doubles(w);
    std::vector<double> out(static_cast<size_t>(checked_num_elements(out_shape)));
    for (size_t flat = 0; flat < out.size(); ++flat) {
        const std::vector<int64_t> o = unravel(static_cast<int64_t>(flat), out_shape);
        const int64_t g = o[1] / cout_g, co = o[1] % cout_g;
        double sum = 0;
        for (int64_t ci = 0; ci < cin_g; ++ci) {
            for (int64_t kf = 0; kf < checked_num_elements(kernel); ++kf) {
                const std::vector<int64_t> k = unravel(kf, kernel);
                std::vector<int64_t> xi = {o[0], g * cin_g + ci};
                bool inside = true;
                for (size_t d = 0; d < rank; ++d) {
                    const int64_t c = o[d + 2] * win.strides[d] - pads[d] + k[d] * at(win.dilations, d, 1);
                    inside = inside && c >= 0 && c < xs[d + 2];
                    xi.push_back(c);
                }
                if (!inside) continue;
                std::vector<int64_t> wi = {g, co, ci};
                wi.insert(wi.end(), k.begin(), k.end());
                sum += xv[static_cast<size_t>(ravel(xi, xs))] * wv[static_cast<size_t>(ravel(wi, ws))];
            }
        }
        out[flat] = sum;
    }
    return out;
}

// Backprop: every x[n][g*CI + ci][i] * w[g][ci][co][k] lands on out[n][g*CO + co][i*s - p + k*d].
std::vector<double> backprop_reference(const Tensor& x, const Tensor& w, bool group, const Shape& out_shape,
                                       const Window& win, const std::vector<int64_t>& pads) {
    const Shape& xs = x.shape();
    Shape ws = w.shape();
    if (!group) ws.insert(ws.begin(), 1);
    const int64_t cin_g = ws[1], cout_g = ws[2];
    const Shape kernel(ws.begin() + 3, ws.end());
    const size_t rank = kernel.size();
    const std::vector<double> xv = to_doubles(x), wv = to_doubles(w);
    std::vector<double> out(static_cast<size_t>(checked_num_elements(out_shape)), 0.0);
    for (int64_t flat = 0; flat < x.num_elements(); ++flat) {
        const std::vector<int64_t> i = unravel(flat, xs);
        const int64_t g = i[1] / cin_g, ci = i[1] % cin_g;
        for (int64_t co = 0; co < cout_g; ++co) {
            for (int64_t kf = 0; kf < checked_num_elements(kernel); ++kf) {
                const std::vector<int64_t> k = unravel(kf, kernel);
                std::vector<int64_t> oi = {i[0], g * cout_g + co};
                bool inside = true;
                for (size_t d = 0; d < rank; ++d) {
                    const int64_t c = i[d + 2] * win.strides[d] - pads[d] + k[d] * at(win.dilations, d, 1);
                    inside = inside && c >= 0 && c < out_shape[d + 2];
                    oi.push_back(c);
                }
                if (!inside) continue;
                std::vector<int64_t> wi = {g, ci, co};
                wi.insert(wi.end(), k.begin(), k.end());
                out[static_cast<size_t>(ravel(oi, out_shape))] +=
                    xv[static_cast<size_t>(flat)] * wv[static_cast<size_t>(ravel(wi, ws))];
            }
        }
    }
    return out;
}

struct ConvRow {
    const char* name;
    const char* type;
    Shape data, filters;
    Window window;
    std::vector<int64_t> output_shape;  // backprop: the optional third input; empty = absent
    Shape out;
    std::vector<int64_t> ref_pads;  // pads_begin auto_pad resolves to
};

bool is_group(const ConvRow& r) { return std::string(r.type).rfind("Group", 0) == 0; }
bool is_backprop(const ConvRow& r) { return std::string(r.type).find("Backprop") != std::string::npos; }

const ConvRow kRows[] = {
    // forward
    {"conv1d_valid", "Convolution", {1, 5, 20}, {4, 5, 4}, {{2}, {1}, {}, {}, "valid"}, {}, {1, 4, 9}, {0}},
    {"conv2d_pads", "Convolution", {2, 3, 7, 6}, {4, 3, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, {}, {2, 4, 7, 6},
     {1, 1}},
    {"conv2d_stride_asymmetric_pads", "Convolution", {1, 2, 9, 8}, {3, 2, 3, 2}, {{2, 3}, {}, {1, 0}, {2, 1}}, {},
     {1, 3, 5, 3}, {1, 0}},
    {"conv2d_dilation", "Convolution", {1, 2, 10, 9}, {2, 2, 3, 3}, {{1, 2}, {2, 3}, {1, 1}, {1, 1}}, {},
     {1, 2, 8, 3}, {1, 1}},
    {"conv3d", "Convolution", {1, 2, 5, 6, 7}, {3, 2, 2, 3, 2}, {{1, 2, 1}, {1, 1, 2}, {0, 1, 1}, {1, 0, 1}}, {},
     {1, 3, 5, 3, 7}, {0, 1, 1}},
    {"same_upper", "Convolution", {1, 2, 7, 8}, {2, 2, 4, 3}, {{2, 2}, {1, 1}, {}, {}, "same_upper"}, {},
     {1, 2, 4, 4}, {1, 0}},
    {"same_lower", "Convolution", {1, 2, 7, 8}, {2, 2, 4, 3}, {{2, 2}, {1, 1}, {}, {}, "same_lower"}, {},
     {1, 2, 4, 4}, {2, 1}},
    {"notset_is_explicit", "Convolution", {1, 1, 4, 4}, {1, 1, 2, 2}, {{1, 1}, {1, 1}, {1, 0}, {0, 1}, "notset"}, {},
     {1, 1, 4, 4}, {1, 0}},
    {"pointwise", "Convolution", {2, 8, 5, 5}, {6, 8, 1, 1}, {{1, 1}, {1, 1}, {0, 0}, {0, 0}}, {}, {2, 6, 5, 5},
     {0, 0}},
    {"pointwise_strided", "Convolution", {1, 4, 5, 5}, {3, 4, 1, 1}, {{2, 2}, {1, 1}, {0, 0}, {0, 0}}, {},
     {1, 3, 3, 3}, {0, 0}},
    {"chunked_im2col", "Convolution", {1, 64, 40, 40}, {8, 64, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, {},
     {1, 8, 40, 40}, {1, 1}},
    // im2col's two ways: the row walk on planes of more than 1024 output pixels, zero-padded copies
    // of the planes below that; stride 1 and stride 2 (8 outputs per vector), asymmetric pads
    {"im2col_rows_large_plane", "Convolution", {1, 2, 48, 50}, {3, 2, 3, 3}, {{1, 1}, {1, 1}, {1, 0}, {1, 2}}, {},
     {1, 3, 48, 50}, {1, 0}},
    {"im2col_rows_stride2_7x7", "Convolution", {1, 3, 70, 61}, {4, 3, 7, 7}, {{2, 2}, {1, 1}, {3, 3}, {3, 2}}, {},
     {1, 4, 35, 30}, {3, 3}},
    {"im2col_padded_stride2", "Convolution", {1, 3, 20, 37}, {4, 3, 3, 3}, {{2, 2}, {1, 1}, {1, 0}, {1, 2}}, {},
     {1, 4, 10, 19}, {1, 0}},
    {"im2col_padded_dilated", "Convolution", {1, 2, 12, 13}, {3, 2, 3, 2}, {{1, 1}, {2, 3}, {2, 1}, {0, 2}}, {},
     {1, 3, 10, 13}, {2, 1}},
    // whole output rows of widths without a fixed-size copy (convolution_gemm.cpp: copy_run):
    // 10 floats (a 32-byte move and an overlapping one), 5 (16-byte moves), 3 (element by element)
    {"im2col_rows_width10", "Convolution", {1, 6, 14, 14}, {16, 6, 5, 5}, {{1, 1}, {1, 1}, {0, 0}, {0, 0}}, {},
     {1, 16, 10, 10}, {0, 0}},
    {"im2col_rows_width5", "Convolution", {1, 2, 9, 7}, {3, 2, 3, 3}, {{1, 1}, {1, 1}, {0, 0}, {0, 0}}, {},
     {1, 3, 7, 5}, {0, 0}},
    {"im2col_rows_width3", "Convolution", {1, 2, 12, 5}, {2, 2, 3, 3}, {{1, 1}, {1, 1}, {0, 0}, {0, 0}}, {},
     {1, 2, 10, 3}, {0, 0}},
    // 3x3 over whole 4x4 / 2x2 output planes, run as the transposed GEMM with A packed straight
    // from the padded planes (rows of 4 pixels one run each; 2x2 gathered)
    {"im2col_square_4x4", "Convolution", {1, 5, 4, 4}, {20, 5, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, {},
     {1, 20, 4, 4}, {1, 1}},
    {"im2col_square_2x2_dilated", "Convolution", {1, 3, 6, 6}, {17, 3, 3, 3}, {{1, 1}, {2, 2}, {0, 0}, {0, 0}}, {},
     {1, 17, 2, 2}, {0, 0}},
    {"im2col_square_4x4_row_stride2", "Convolution", {1, 4, 8, 4}, {16, 4, 3, 3}, {{2, 1}, {1, 1}, {1, 1}, {1, 1}},
     {}, {1, 16, 4, 4}, {1, 1}},
    // output rows of whole 8-column groups: the GEMM reads B in place from column-phase planes
    // (any stride, dilation and pads; groups; K in several blocks)
    {"implicit_7x7_s2_asymmetric", "Convolution", {1, 3, 30, 33}, {5, 3, 7, 7}, {{2, 2}, {1, 1}, {3, 2}, {2, 3}}, {},
     {1, 5, 15, 16}, {3, 2}},
    {"implicit_dilated_s3", "Convolution", {2, 4, 11, 23}, {7, 4, 3, 3}, {{1, 3}, {2, 2}, {2, 1}, {1, 2}}, {},
     {2, 7, 10, 8}, {2, 1}},
    {"implicit_group", "GroupConvolution", {1, 6, 9, 16}, {2, 5, 3, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, {},
     {1, 10, 9, 16}, {1, 1}},
    {"implicit_k_blocks", "Convolution", {1, 40, 8, 8}, {20, 40, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, {},
     {1, 20, 8, 8}, {1, 1}},
    {"one_input_channel_gemm", "Convolution", {1, 1, 8, 8}, {6, 1, 5, 5}, {{1, 1}, {1, 1}, {0, 0}, {0, 0}}, {},
     {1, 6, 4, 4}, {0, 0}},
    {"one_input_channel_direct", "Convolution", {2, 1, 8, 8}, {3, 1, 5, 5}, {{1, 2}, {1, 1}, {2, 0}, {0, 1}}, {},
     {2, 3, 6, 3}, {2, 0}},
    {"group", "GroupConvolution", {1, 6, 5, 5}, {3, 4, 2, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, {},
     {1, 12, 5, 5}, {1, 1}},
    {"depthwise", "GroupConvolution", {2, 5, 9, 9}, {5, 1, 1, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, {1, 1}}, {},
     {2, 5, 5, 5}, {1, 1}},
    {"depthwise_multiplier_dilated", "GroupConvolution", {1, 3, 6, 7}, {3, 2, 1, 3, 3},
     {{1, 1}, {2, 2}, {2, 2}, {2, 2}}, {}, {1, 6, 6, 7}, {2, 2}},
    // depthwise rows wide enough for the vector blocks (8 and 4 columns, overlapping last block)
    {"depthwise_wide_s1", "GroupConvolution", {1, 3, 13, 21}, {3, 1, 1, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, {},
     {1, 3, 13, 21}, {1, 1}},
    {"depthwise_wide_s2_asymmetric_pads", "GroupConvolution", {1, 4, 17, 30}, {4, 1, 1, 3, 3},
     {{2, 2}, {1, 1}, {0, 1}, {2, 0}}, {}, {1, 4, 9, 15}, {0, 1}},
    {"depthwise_s3_5x4_dilated", "GroupConvolution", {1, 2, 20, 26}, {2, 1, 1, 5, 4}, {{3, 3}, {2, 1}, {2, 1}, {1, 2}},
     {}, {1, 2, 5, 9}, {2, 1}},
    {"depthwise_multiplier_wide_s2", "GroupConvolution", {2, 2, 12, 40}, {2, 3, 1, 3, 3},
     {{2, 2}, {1, 1}, {1, 1}, {1, 1}}, {}, {2, 6, 6, 20}, {1, 1}},
    {"depthwise_narrow", "GroupConvolution", {1, 3, 5, 5}, {3, 1, 1, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, {},
     {1, 3, 5, 5}, {1, 1}},
    {"depthwise_3x3_dilated_s2", "GroupConvolution", {1, 2, 16, 19}, {2, 1, 1, 3, 3}, {{2, 2}, {2, 2}, {2, 2}, {2, 2}},
     {}, {1, 2, 8, 10}, {2, 2}},
    {"depthwise_no_pads_s2", "GroupConvolution", {1, 2, 9, 33}, {2, 1, 1, 3, 3}, {{2, 2}, {1, 1}, {0, 0}, {0, 0}}, {},
     {1, 2, 4, 16}, {0, 0}},
    // many channels on small planes: channels last, 8 channels a vector, blocks of 64 channels
    {"depthwise_channels_last_s1", "GroupConvolution", {2, 75, 4, 4}, {75, 1, 1, 3, 3},
     {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, {}, {2, 75, 4, 4}, {1, 1}},
    {"depthwise_channels_last_s2_dilated", "GroupConvolution", {1, 40, 7, 9}, {40, 1, 1, 3, 3},
     {{2, 2}, {2, 1}, {2, 1}, {1, 0}}, {}, {1, 40, 3, 4}, {2, 1}},
    {"depthwise_channels_last_5x5", "GroupConvolution", {1, 36, 6, 6}, {36, 1, 1, 5, 5},
     {{1, 1}, {1, 1}, {2, 2}, {2, 2}}, {}, {1, 36, 6, 6}, {2, 2}},
    // stride along W > 1: the planar kernel reads the plane split by column phase (8-, 4-wide and
    // scalar rows; odd widths; pads 0 to 3 on the left; stride 3; dilation; W stride only)
    {"depthwise_s2_odd_widths_batch2", "GroupConvolution", {2, 3, 15, 23}, {3, 1, 1, 3, 3},
     {{2, 2}, {1, 1}, {1, 1}, {1, 1}}, {}, {2, 3, 8, 12}, {1, 1}},
    {"depthwise_s2_narrow", "GroupConvolution", {1, 3, 9, 11}, {3, 1, 1, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, {1, 1}}, {},
     {1, 3, 5, 6}, {1, 1}},
    {"depthwise_s2_scalar", "GroupConvolution", {2, 2, 5, 5}, {2, 1, 1, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, {1, 1}}, {},
     {2, 2, 3, 3}, {1, 1}},
    {"depthwise_s3_asymmetric", "GroupConvolution", {1, 4, 20, 40}, {4, 1, 1, 3, 3}, {{3, 3}, {1, 1}, {1, 0}, {2, 1}},
     {}, {1, 4, 7, 13}, {1, 0}},
    {"depthwise_s3_5x5_dilated", "GroupConvolution", {1, 2, 25, 47}, {2, 1, 1, 5, 5}, {{3, 3}, {2, 2}, {2, 3}, {1, 2}},
     {}, {1, 2, 7, 15}, {2, 3}},
    {"depthwise_s2_dilated_batch2", "GroupConvolution", {2, 5, 17, 35}, {5, 1, 1, 3, 3},
     {{2, 2}, {2, 2}, {2, 1}, {1, 2}}, {}, {2, 5, 8, 17}, {2, 1}},
    {"depthwise_s2_left_pad2", "GroupConvolution", {1, 3, 12, 33}, {3, 1, 1, 3, 3}, {{2, 2}, {1, 1}, {0, 2}, {1, 0}},
     {}, {1, 3, 6, 17}, {0, 2}},
    {"depthwise_s2_3x7_left_pad3", "GroupConvolution", {1, 2, 14, 41}, {2, 1, 1, 3, 7},
     {{2, 2}, {1, 1}, {1, 3}, {1, 3}}, {}, {1, 2, 7, 21}, {1, 3}},
    {"depthwise_stride_w_only", "GroupConvolution", {1, 3, 10, 30}, {3, 1, 1, 3, 3}, {{1, 2}, {1, 1}, {1, 1}, {1, 1}},
     {}, {1, 3, 10, 15}, {1, 1}},
    {"depthwise_stride_h_only", "GroupConvolution", {1, 3, 21, 19}, {3, 1, 1, 3, 3}, {{2, 1}, {1, 1}, {1, 1}, {1, 1}},
     {}, {1, 3, 11, 19}, {1, 1}},
    {"depthwise_s4_wide_rows", "GroupConvolution", {1, 2, 9, 70}, {2, 1, 1, 3, 5}, {{1, 4}, {1, 1}, {1, 2}, {1, 1}},
     {}, {1, 2, 9, 18}, {1, 2}},
    {"depthwise_multiplier_s3", "GroupConvolution", {1, 2, 11, 31}, {2, 2, 1, 3, 3}, {{3, 3}, {1, 2}, {1, 2}, {1, 2}},
     {}, {1, 4, 4, 11}, {1, 2}},
    // channel counts 8 and 20 (planar), 96 on 8-wide output rows (planar: full vectors)
    {"depthwise_8_channels_s2", "GroupConvolution", {1, 8, 9, 19}, {8, 1, 1, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, {1, 1}},
     {}, {1, 8, 5, 10}, {1, 1}},
    {"depthwise_20_channels", "GroupConvolution", {2, 20, 6, 6}, {20, 1, 1, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}},
     {}, {2, 20, 6, 6}, {1, 1}},
    {"depthwise_96_8x8", "GroupConvolution", {1, 96, 8, 8}, {96, 1, 1, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, {},
     {1, 96, 8, 8}, {1, 1}},
    {"depthwise_96_16x16_s2", "GroupConvolution", {2, 96, 16, 16}, {96, 1, 1, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, {1, 1}},
     {}, {2, 96, 8, 8}, {1, 1}},
    // channels last (output rows under 8 pixels): blocks of whole vectors, channel tails (100),
    // 4-pixel planes and tails (2x2, 1x5), stride 2 and 3
    {"depthwise_channels_last_96_s2_batch2", "GroupConvolution", {2, 96, 8, 8}, {96, 1, 1, 3, 3},
     {{2, 2}, {1, 1}, {1, 1}, {1, 1}}, {}, {2, 96, 4, 4}, {1, 1}},
    {"depthwise_channels_last_100", "GroupConvolution", {2, 100, 4, 4}, {100, 1, 1, 3, 3},
     {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, {}, {2, 100, 4, 4}, {1, 1}},
    {"depthwise_channels_last_100_2x2", "GroupConvolution", {1, 100, 2, 2}, {100, 1, 1, 3, 3},
     {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, {}, {1, 100, 2, 2}, {1, 1}},
    {"depthwise_channels_last_40_s2_2x2", "GroupConvolution", {1, 40, 4, 4}, {40, 1, 1, 3, 3},
     {{2, 2}, {1, 1}, {1, 1}, {1, 1}}, {}, {1, 40, 2, 2}, {1, 1}},
    {"depthwise_channels_last_48_1x5", "GroupConvolution", {1, 48, 1, 5}, {48, 1, 1, 3, 3},
     {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, {}, {1, 48, 1, 5}, {1, 1}},
    {"depthwise_channels_last_37_s3_asymmetric", "GroupConvolution", {1, 37, 9, 11}, {37, 1, 1, 3, 3},
     {{3, 3}, {1, 1}, {0, 2}, {1, 0}}, {}, {1, 37, 3, 4}, {0, 2}},
    {"depthwise_1d", "GroupConvolution", {1, 4, 10}, {4, 1, 1, 3}, {{3}, {1}, {2}, {0}}, {}, {1, 4, 4}, {2}},
    {"depthwise_3d_same_upper", "GroupConvolution", {1, 2, 4, 5, 7}, {2, 1, 1, 2, 2, 3},
     {{1, 2, 2}, {1, 1, 1}, {}, {}, "same_upper"}, {}, {1, 2, 4, 3, 4}, {0, 0, 1}},
    // backprop
    {"backprop_1d", "ConvolutionBackpropData", {1, 1, 3}, {1, 2, 3}, {{1}, {1}, {0}, {0}, "explicit", {0}}, {},
     {1, 2, 5}, {0}},
    {"backprop_output_padding", "ConvolutionBackpropData", {1, 1, 3, 3}, {1, 2, 3, 3},
     {{3, 2}, {1, 1}, {0, 0}, {0, 0}, "explicit", {1, 1}}, {}, {1, 2, 10, 8}, {0, 0}},
    {"backprop_pads", "ConvolutionBackpropData", {1, 1, 3, 3}, {1, 2, 3, 3},
     {{3, 2}, {1, 1}, {1, 2}, {1, 2}, "explicit", {0, 0}}, {}, {1, 2, 7, 3}, {1, 2}},
    {"backprop_3d_dilated", "ConvolutionBackpropData", {1, 2, 3, 2, 3}, {2, 3, 2, 2, 2},
     {{1, 2, 1}, {2, 1, 1}, {1, 0, 0}, {0, 0, 1}}, {}, {1, 3, 4, 4, 3}, {1, 0, 0}},
    {"backprop_1d_dilated_output_padding", "ConvolutionBackpropData", {2, 3, 5}, {3, 2, 2},
     {{2}, {2}, {1}, {0}, "explicit", {1}}, {}, {2, 2, 11}, {1}},
    {"backprop_output_shape_explicit", "ConvolutionBackpropData", {1, 2, 4, 4}, {2, 3, 3, 3},
     {{2, 2}, {1, 1}, {1, 1}, {1, 1}}, {8, 9}, {1, 3, 8, 9}, {1, 1}},
    {"backprop_output_shape_same_upper", "ConvolutionBackpropData", {1, 2, 3, 3}, {2, 1, 3, 3},
     {{2, 2}, {1, 1}, {}, {}, "same_upper"}, {6, 5}, {1, 1, 6, 5}, {1, 1}},
    {"backprop_output_shape_same_lower", "ConvolutionBackpropData", {1, 2, 3, 3}, {2, 1, 3, 3},
     {{2, 2}, {1, 1}, {}, {}, "same_lower"}, {6, 5}, {1, 1, 6, 5}, {0, 1}},
    {"backprop_same_upper_without_output_shape", "ConvolutionBackpropData", {1, 2, 3, 3}, {2, 1, 3, 3},
     {{2, 2}, {1, 1}, {}, {}, "same_upper"}, {}, {1, 1, 7, 7}, {0, 0}},
    {"backprop_valid_ignores_pads", "ConvolutionBackpropData", {1, 2, 3, 3}, {2, 2, 2, 2},
     {{1, 1}, {1, 1}, {1, 1}, {1, 1}, "valid"}, {}, {1, 2, 4, 4}, {0, 0}},
    {"backprop_chunked", "ConvolutionBackpropData", {1, 4, 90, 90}, {4, 8, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}},
     {}, {1, 8, 90, 90}, {1, 1}},
    {"group_backprop", "GroupConvolutionBackpropData", {1, 4, 3, 3}, {2, 2, 3, 2, 2}, {{2, 2}, {1, 1}, {0, 0}, {0, 0}},
     {}, {1, 6, 6, 6}, {0, 0}},
    {"group_backprop_output_shape", "GroupConvolutionBackpropData", {2, 6, 4}, {3, 2, 1, 3},
     {{2}, {1}, {}, {}, "same_lower"}, {8}, {2, 3, 8}, {0}},
};

std::vector<Tensor> inputs_of(const ConvRow& row, ElementType type, unsigned seed) {
    std::vector<Tensor> in = {random_tensor(type, row.data, seed), random_tensor(type, row.filters, seed + 1)};
    if (!row.output_shape.empty()) in.push_back(i64s(row.output_shape));
    return in;
}

TEST(Convolution, ShapeRuleOfEveryRow) {
    for (const ConvRow& row : kRows) {
        SCOPED_TRACE(row.name);
        const OpTester op(row.type, 1, attributes_of(row.window));
        std::vector<RuleInput> in = {unknown(ElementType::f32, row.data), unknown(ElementType::f32, row.filters)};
        if (!row.output_shape.empty()) in.push_back(known(i64s(row.output_shape)));
        const auto infos = op.infer(in);
        ASSERT_EQ(infos.size(), 1u);
        EXPECT_EQ(infos[0].shape, PartialShape(row.out));
    }
}

// The depthwise (direct) kernel in f64 and f16 (computed in f32) as well.
TEST(Convolution, DepthwiseValuesInEveryFloatType) {
    unsigned seed = 700;
    for (const ConvRow& row : kRows) {
        if (std::string(row.name).rfind("depthwise", 0) != 0 || row.data.size() != 4) continue;
        for (const ElementType type : {ElementType::f64, ElementType::f16}) {
            SCOPED_TRACE(std::string(row.name) + " " + to_string(type));
            const OpTester op(row.type, 1, attributes_of(row.window));
            const std::vector<Tensor> in = inputs_of(row, type, seed += 2);
            const Tensor out = op.run1(in);
            ASSERT_EQ(out.shape(), row.out);
            const std::vector<double> want = forward_reference(in[0], in[1], true, row.out, row.window, row.ref_pads);
            EXPECT_TRUE(all_close(out, want, type == ElementType::f16 ? 1e-2 : 1e-12));
        }
    }
}

TEST(Convolution, ValuesMatchReference) {
    unsigned seed = 100;
    for (const ConvRow& row : kRows) {
        SCOPED_TRACE(row.name);
        const OpTester op(row.type, 1, attributes_of(row.window));
        const std::vector<Tensor> in = inputs_of(row, ElementType::f32, seed += 2);
        // Backprop's output_shape is a run-time value at load time.
        const Tensor out = op.run1(in, row.output_shape.empty() ? std::vector<size_t>{} : std::vector<size_t>{2});
        ASSERT_EQ(out.shape(), row.out);
        const std::vector<double> want =
            is_backprop(row) ? backprop_reference(in[0], in[1], is_group(row), row.out, row.window, row.ref_pads)
                             : forward_reference(in[0], in[1], is_group(row), row.out, row.window, row.ref_pads);
        EXPECT_TRUE(all_close(out, want, 1e-4));
    }
}

// Runs `model` (one output) at 1, 2, 3 and 4 threads: its node fused as `fused_type` ran
// `method`, the 1-thread output is `want` within 1e-4, and every thread count gives the same bits.
void expect_fused_at_every_thread_count(const Model& model, const std::vector<std::pair<std::string, const Tensor*>>& inputs,
                                        const Shape& out, const std::string& fused_type, const std::string& method,
                                        const std::vector<double>& want) {
    std::vector<float> first;
    for (int threads : {1, 2, 3, 4}) {
        SCOPED_TRACE("threads " + std::to_string(threads));
        CompileOptions o;
        o.threads = threads;
        o.profiling = true;
        const CompiledModel compiled(model, o);
        InferRequest r = compiled.create_infer_request();
        for (const auto& [name, tensor] : inputs) r.set_input(name, *tensor);
        r.infer();
        const Tensor& y = r.output(0);
        ASSERT_EQ(y.shape(), out);
        std::vector<float> got(y.data<float>(), y.data<float>() + y.num_elements());
        std::string types;  // what ran, for the message
        bool fused = false;
        for (const ProfileEntry& e : r.profiling()) {
            types += e.type + " ";
            if (e.type == fused_type) {
                fused = true;
                EXPECT_EQ(e.method, method);
            }
        }
        EXPECT_TRUE(fused) << types;
        if (threads == 1) {
            first = got;
            EXPECT_TRUE(all_close(y, want, 1e-4));
        } else {
            EXPECT_EQ(got, first);
        }
    }
}

// Depthwise layers in a compiled model, GroupConvolution -> Add bias -> Clamp(0, 6) (fused into the
// convolution as its epilogue), on each depthwise path: planar at stride 1, 2 and 3 (column
// phases), planar on 8-wide rows of 96 channels, channels last with channel and pixel tails; batch
// 1 and 2. Against the plain reference, and bit-identical for 1, 2, 3 and 4 threads.
TEST(Convolution, DepthwiseFusedEpilogueEveryPathAndThreadCount) {
    struct Case {
        const char* name;
        Shape data;
        std::vector<int64_t> kernel;
        Window window;
        const char* method;
    };
    const Case cases[] = {
        {"planar_s2", {2, 20, 15, 23}, {3, 3}, {{2, 2}, {1, 1}, {1, 1}, {1, 1}}, "direct"},
        {"planar_s3_dilated", {1, 8, 20, 40}, {3, 3}, {{3, 3}, {2, 2}, {2, 1}, {1, 2}}, "direct"},
        {"planar_96_8x8", {1, 96, 8, 8}, {3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, "direct"},
        {"planar_96_s2", {2, 96, 16, 16}, {3, 3}, {{2, 2}, {1, 1}, {1, 1}, {1, 1}}, "direct"},
        // Rows of one 512-bit vector, and of one and an overlapping second (AVX-512's rows).
        {"planar_24_16x16", {1, 24, 16, 16}, {3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, "direct"},
        {"planar_8_9x23", {2, 8, 9, 23}, {3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, "direct"},
        {"channels_last_96_s2", {2, 96, 8, 8}, {3, 3}, {{2, 2}, {1, 1}, {1, 1}, {1, 1}}, "direct-channels-last"},
        {"channels_last_100_2x2", {1, 100, 2, 2}, {3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, "direct-channels-last"},
        {"channels_last_480_2x2", {1, 480, 2, 2}, {3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, "direct-channels-last"},
        {"channels_last_44_5x5_1x5", {2, 44, 3, 5}, {5, 5}, {{2, 1}, {1, 1}, {1, 2}, {1, 2}}, "direct-channels-last"},
    };
    std::mt19937 rng(321);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    const auto dims = [](const Shape& s) { return std::vector<long long>(s.begin(), s.end()); };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        const int64_t channels = c.data[1];
        Shape out = {c.data[0], channels};
        for (size_t d = 0; d < 2; ++d) {
            const int64_t span = (c.kernel[d] - 1) * c.window.dilations[d] + 1;
            out.push_back((c.data[d + 2] + c.window.pads_begin[d] + c.window.pads_end[d] - span) / c.window.strides[d] + 1);
        }
        const Shape wshape = {channels, 1, 1, c.kernel[0], c.kernel[1]}, bshape = {1, channels, 1, 1};
        Tensor x(ElementType::f32, c.data), w(ElementType::f32, wshape), bias(ElementType::f32, bshape);
        for (Tensor* t : {&x, &w, &bias})
            for (int64_t i = 0; i < t->num_elements(); ++i) t->data<float>()[i] = (t == &x ? 4.0f : 1.0f) * u(rng);
        IrBuilder b;
        std::string data;
        for (const IrAttribute& a : attributes_of(c.window)) data += a.name + "=\"" + a.value + "\" ";
        b.parameter(0, "x", "f32", dims(c.data));
        b.constant(1, "w", "f32", dims(wshape), w.data<float>(), static_cast<size_t>(w.num_elements()) * sizeof(float));
        b.layer(2, "dw", "GroupConvolution", "opset1", data, {{0, "", dims(c.data), ""}, {1, "", dims(wshape), ""}},
                {{2, "FP32", dims(out), ""}});
        b.constant(3, "bias", "f32", dims(bshape), bias.data<float>(), static_cast<size_t>(channels) * sizeof(float));
        b.layer(4, "add", "Add", "opset1", "", {{0, "", dims(out), ""}, {1, "", dims(bshape), ""}}, {{2, "FP32", dims(out), ""}});
        b.layer(5, "clamp", "Clamp", "opset1", "min=\"0\" max=\"6\"", {{0, "", dims(out), ""}}, {{1, "FP32", dims(out), ""}});
        b.result(6, "out", "f32", dims(out));
        b.edge(0, 0, 2, 0).edge(1, 0, 2, 1).edge(2, 2, 4, 0).edge(3, 0, 4, 1).edge(4, 2, 5, 0).edge(5, 1, 6, 0);
        const Model model = Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size());
        std::vector<double> want = forward_reference(x, w, true, out, c.window, c.window.pads_begin);
        const int64_t plane = out[2] * out[3];
        for (size_t i = 0; i < want.size(); ++i)
            want[i] = std::clamp(want[i] + bias.data<float>()[static_cast<int64_t>(i) / plane % channels], 0.0, 6.0);
        expect_fused_at_every_thread_count(model, {{"x", &x}}, out, "GroupConvolution+Add+Clamp", c.method, want);
        // Each lane adds the same taps in the same order at every vector width: the same bits at
        // every instruction-set cap as at the CPU's own level.
        const std::vector<float> xs(x.data<float>(), x.data<float>() + x.num_elements());
        const auto run_at = [&](const cpu::Isa* cap) {
            if (cap) cpu::set_isa_cap_for_testing(*cap);
            std::vector<float> got = run_one_input(model, xs, c.data, CompileOptions{}).out;
            if (cap) cpu::reset_isa_cap_for_testing();
            return got;
        };
        const std::vector<float> native = run_at(nullptr);
        for (cpu::Isa cap : {cpu::Isa::Sse, cpu::Isa::Avx2}) {
            if (cpu::isa_supported(cap) && cap != cpu::detected_isa()) {
                EXPECT_EQ(run_at(&cap), native) << "at " << cpu::isa_name(cap);
            }
        }
    }
}

// 3x3 stride-1 convolutions of 64+ channels on 16x16+ planes run as Winograd F(2x2, 3x3): fused
// with bias, a residual Add and ReLU, against the plain reference, and bit-identical for 1, 2, 3
// and 4 threads. Rows of exactly 8 tiles, of more (the last block of 8 overlapping), odd output
// sizes, asymmetric pads, batch 2, and bands of tile rows (3, 3 and the tail, 2).
TEST(Convolution, WinogradFusedEpilogueEveryShapeAndThreadCount) {
    struct Case {
        const char* name;
        Shape data;
        int64_t cout;
        std::vector<int64_t> pads_begin, pads_end;
    };
    const Case cases[] = {
        {"16x16", {1, 64, 16, 16}, 72, {1, 1}, {1, 1}},
        {"asymmetric_pads_batch2", {2, 64, 17, 16}, 64, {1, 2}, {0, 1}},
        {"odd_output_no_pads", {1, 72, 19, 19}, 64, {0, 0}, {0, 0}},
        {"three_bands", {1, 64, 16, 130}, 64, {1, 1}, {1, 1}},
    };
    std::mt19937 rng(654);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    const auto dims = [](const Shape& s) { return std::vector<long long>(s.begin(), s.end()); };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        const Window window{{1, 1}, {1, 1}, c.pads_begin, c.pads_end};
        const Shape out = {c.data[0], c.cout, c.data[2] + c.pads_begin[0] + c.pads_end[0] - 2,
                           c.data[3] + c.pads_begin[1] + c.pads_end[1] - 2};
        const Shape wshape = {c.cout, c.data[1], 3, 3}, bshape = {1, c.cout, 1, 1};
        Tensor x(ElementType::f32, c.data), w(ElementType::f32, wshape), bias(ElementType::f32, bshape),
            skip(ElementType::f32, out);
        for (Tensor* t : {&x, &w, &bias, &skip})
            for (int64_t i = 0; i < t->num_elements(); ++i) t->data<float>()[i] = (t == &x ? 4.0f : 1.0f) * u(rng);
        IrBuilder b;
        std::string data;
        for (const IrAttribute& a : attributes_of(window)) data += a.name + "=\"" + a.value + "\" ";
        b.parameter(0, "x", "f32", dims(c.data));
        b.parameter(1, "skip", "f32", dims(out));
        b.constant(2, "w", "f32", dims(wshape), w.data<float>(), static_cast<size_t>(w.num_elements()) * sizeof(float));
        b.layer(3, "conv", "Convolution", "opset1", data, {{0, "", dims(c.data), ""}, {1, "", dims(wshape), ""}},
                {{2, "FP32", dims(out), ""}});
        b.constant(4, "bias", "f32", dims(bshape), bias.data<float>(), static_cast<size_t>(c.cout) * sizeof(float));
        b.layer(5, "add", "Add", "opset1", "", {{0, "", dims(out), ""}, {1, "", dims(bshape), ""}}, {{2, "FP32", dims(out), ""}});
        b.layer(6, "residual", "Add", "opset1", "", {{0, "", dims(out), ""}, {1, "", dims(out), ""}}, {{2, "FP32", dims(out), ""}});
        b.layer(7, "relu", "Relu", "opset1", "", {{0, "", dims(out), ""}}, {{1, "FP32", dims(out), ""}});
        b.result(8, "out", "f32", dims(out));
        b.edge(0, 0, 3, 0).edge(2, 0, 3, 1).edge(3, 2, 5, 0).edge(4, 0, 5, 1).edge(5, 2, 6, 0).edge(1, 0, 6, 1);
        b.edge(6, 2, 7, 0).edge(7, 1, 8, 0);
        const Model model = Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size());
        // The reference as plain loops in double (forward_reference's general index walk is slow on
        // planes this size): relu(conv + bias + skip).
        const int64_t cin = c.data[1], ih = c.data[2], iw = c.data[3], oh_n = out[2], ow_n = out[3];
        std::vector<double> want(static_cast<size_t>(skip.num_elements()));
        for (int64_t n = 0; n < c.data[0]; ++n)
            for (int64_t o = 0; o < c.cout; ++o)
                for (int64_t oh = 0; oh < oh_n; ++oh)
                    for (int64_t ow = 0; ow < ow_n; ++ow) {
                        double sum = 0;
                        for (int64_t i = 0; i < cin; ++i)
                            for (int64_t kh = 0; kh < 3; ++kh) {
                                const int64_t r = oh - c.pads_begin[0] + kh;
                                if (r < 0 || r >= ih) continue;
                                for (int64_t kw = 0; kw < 3; ++kw) {
                                    const int64_t q = ow - c.pads_begin[1] + kw;
                                    if (q < 0 || q >= iw) continue;
                                    sum += double{x.data<float>()[((n * cin + i) * ih + r) * iw + q]} *
                                           w.data<float>()[((o * cin + i) * 3 + kh) * 3 + kw];
                                }
                            }
                        const int64_t at = ((n * c.cout + o) * oh_n + oh) * ow_n + ow;
                        want[static_cast<size_t>(at)] =
                            std::max(sum + bias.data<float>()[o] + skip.data<float>()[at], 0.0);
                    }
        expect_fused_at_every_thread_count(model, {{"x", &x}, {"skip", &skip}}, out, "Convolution+Add+Add+Relu",
                                           "winograd", want);
    }
}

TEST(Convolution, OtherFloatTypes) {
    struct TypeCase {
        ElementType type;
        double tol;
    };
    const TypeCase types[] = {{ElementType::f64, 1e-12}, {ElementType::f16, 2e-2}, {ElementType::bf16, 6e-2}};
    for (const char* name : {"conv2d_dilation", "depthwise", "pointwise", "backprop_pads", "group_backprop"}) {
        const ConvRow& row = *std::find_if(std::begin(kRows), std::end(kRows),
                                           [&](const ConvRow& r) { return std::string(r.name) == name; });
        for (const TypeCase& tc : types) {
            SCOPED_TRACE(std::string(name) + " " + to_string(tc.type));
            const std::vector<Tensor> in = inputs_of(row, tc.type, 7);
            const Tensor out = OpTester(row.type, 1, attributes_of(row.window)).run1(in);
            EXPECT_EQ(out.type(), tc.type);
            const std::vector<double> want =
                is_backprop(row) ? backprop_reference(in[0], in[1], is_group(row), row.out, row.window, row.ref_pads)
                                 : forward_reference(in[0], in[1], is_group(row), row.out, row.window, row.ref_pads);
            EXPECT_TRUE(all_close(out, want, tc.tol));
        }
    }
}

TEST(Convolution, HandComputedOnnxExample) {
    // ONNX's conv example: 5x5 iota, 3x3 ones, pads 1.
    const Tensor x = iota(ElementType::f32, {1, 1, 5, 5});
    const Tensor w = make_tensor(ElementType::f32, {1, 1, 3, 3}, std::vector<double>(9, 1.0));
    const Tensor out = OpTester("Convolution", 1, attributes_of({{1, 1}, {1, 1}, {1, 1}, {1, 1}})).run1({x, w});
    EXPECT_TRUE(tensors_equal(out, make_tensor<float>({1, 1, 5, 5}, {12, 21, 27, 33, 24, 33, 54, 63, 72, 51, 63, 99, 108,
                                                                     117, 81, 93, 144, 153, 162, 111, 72, 111, 117,
                                                                     123, 84})));
    // ConvTranspose 1-D: x = [0, 1, 2], w = ones -> [0, 1, 3, 3, 2].
    const Tensor t = OpTester("ConvolutionBackpropData", 1, attributes_of({{1}, {1}, {0}, {0}}))
                         .run1({iota(ElementType::f32, {1, 1, 3}), make_tensor<float>({1, 1, 3}, {1, 1, 1})});
    EXPECT_TRUE(tensors_equal(t, make_tensor<float>({1, 1, 5}, {0, 1, 3, 3, 2})));
}

TEST(Convolution, ShapeRuleSpecExamplesAndDynamicDims) {
    struct Row {
        const char* name;
        const char* type;
        PartialShape data, filters;
        Window window;
        std::optional<Tensor> output_shape;  // value known at load time
        PartialShape out;
    };
    const Row rows[] = {
        {"spec_conv1d", "Convolution", {1, 5, 128}, {16, 5, 4}, {{2}, {1}, {0}, {0}, "valid"}, {}, {1, 16, 63}},
        {"spec_conv2d", "Convolution", {1, 3, 224, 224}, {64, 3, 5, 5}, {{1, 1}, {1, 1}, {2, 2}, {2, 2}}, {},
         {1, 64, 224, 224}},
        {"spec_conv3d", "Convolution", {1, 7, 320, 320, 320}, {32, 7, 3, 3, 3},
         {{3, 3, 3}, {2, 2, 2}, {0, 0, 0}, {0, 0, 0}}, {}, {1, 32, 106, 106, 106}},
        {"spec_backprop", "ConvolutionBackpropData", {1, 20, 224, 224}, {20, 10, 3, 3},
         {{2, 2}, {1, 1}, {1, 1}, {1, 1}, "explicit", {0, 0}}, {}, {1, 10, 447, 447}},
        {"spec_backprop_output_padding", "ConvolutionBackpropData", {1, 20, 2, 2}, {20, 10, 3, 3},
         {{3, 3}, {1, 1}, {0, 0}, {0, 0}, "explicit", {2, 2}}, {}, {1, 10, 8, 8}},
        {"spec_backprop_output_shape", "ConvolutionBackpropData", {1, 20, 224, 224}, {20, 10, 3, 3},
         {{1, 1}, {1, 1}, {1, 1}, {1, 1}, "valid", {0, 0}}, i64s({450, 450}), {1, 10, 450, 450}},
        {"dynamic_batch_and_height", "Convolution", {kDynamic, 3, kDynamic, 10}, {8, 3, 3, 3},
         {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, {}, {kDynamic, 8, kDynamic, 10}},
        {"dynamic_filters", "Convolution", {1, 3, 10, 10}, {kDynamic, 3, kDynamic, 3}, {{1, 1}, {1, 1}, {0, 0}, {0, 0}},
         {}, {1, kDynamic, kDynamic, 8}},
        {"dynamic_filter_rank", "GroupConvolution", {1, 4, 10, 10}, PartialShape::dynamic_rank(),
         {{1, 1}, {1, 1}, {0, 0}, {0, 0}}, {}, {1, kDynamic, kDynamic, kDynamic}},
        {"dynamic_data_rank", "Convolution", PartialShape::dynamic_rank(), {8, 3, 3, 3},
         {{1, 1}, {1, 1}, {0, 0}, {0, 0}}, {}, PartialShape::dynamic_rank()},
    };
    for (const Row& row : rows) {
        SCOPED_TRACE(row.name);
        std::vector<RuleInput> in = {unknown(ElementType::f32, row.data), unknown(ElementType::f32, row.filters)};
        if (row.output_shape) in.push_back(known(*row.output_shape));
        EXPECT_EQ(OpTester(row.type, 1, attributes_of(row.window)).infer(in)[0].shape, row.out);
    }
    // output_shape known only at run time: spatial dims unknown at load.
    const auto infos = OpTester("ConvolutionBackpropData", 1, attributes_of({{1, 1}, {1, 1}, {0, 0}, {0, 0}}))
                           .infer({unknown(ElementType::f32, {1, 2, 3, 3}), unknown(ElementType::f32, {2, 5, 3, 3}),
                                   unknown(ElementType::i32, {2})});
    EXPECT_EQ(infos[0].shape, PartialShape({1, 5, kDynamic, kDynamic}));
}

TEST(Convolution, Errors) {
    const Window plain2d = {{1, 1}, {1, 1}, {0, 0}, {0, 0}};
    struct Row {
        const char* name;
        const char* type;
        std::vector<IrAttribute> attributes;
        std::vector<RuleInput> inputs;
        ErrorKind kind;
        const char* code;
        const char* text;
        int port;
    };
    const auto f32 = ElementType::f32;
    const Row rows[] = {
        {"channels_differ", "Convolution", attributes_of(plain2d),
         {unknown(f32, {1, 3, 5, 5}), unknown(f32, {4, 2, 3, 3})}, ErrorKind::ShapeRule, "channels-mismatch",
         "has 3 channels", 1},
        {"group_channels_differ", "GroupConvolution", attributes_of(plain2d),
         {unknown(f32, {1, 6, 5, 5}), unknown(f32, {4, 2, 2, 3, 3})}, ErrorKind::ShapeRule, "channels-mismatch",
         "4 groups x 2 = 8", 1},
        {"backprop_channels_differ", "ConvolutionBackpropData", attributes_of(plain2d),
         {unknown(f32, {1, 3, 5, 5}), unknown(f32, {2, 3, 3, 3})}, ErrorKind::ShapeRule, "channels-mismatch",
         "expect 2", 1},
        {"data_rank_2", "Convolution", attributes_of(plain2d), {unknown(f32, {3, 5}), unknown(f32, {4, 3, 3, 3})},
         ErrorKind::ShapeRule, "rank-invalid", "rank 3..5", 0},
        {"filters_rank", "Convolution", attributes_of(plain2d), {unknown(f32, {1, 3, 5, 5}), unknown(f32, {4, 3, 3})},
         ErrorKind::ShapeRule, "rank-invalid", "filters of rank 4", 1},
        {"strides_count", "Convolution", attributes_of({{1}, {1, 1}, {0, 0}, {0, 0}}),
         {unknown(f32, {1, 3, 5, 5}), unknown(f32, {4, 3, 3, 3})}, ErrorKind::Attribute, "attribute-invalid",
         "'strides' has 1 value(s)", -1},
        {"pads_count", "Convolution", attributes_of({{1, 1}, {1, 1}, {0, 0, 0}, {0, 0}}),
         {unknown(f32, {1, 3, 5, 5}), unknown(f32, {4, 3, 3, 3})}, ErrorKind::Attribute, "attribute-invalid",
         "'pads_begin' has 3 value(s)", -1},
        {"window_too_large", "Convolution", attributes_of(plain2d),
         {unknown(f32, {1, 1, 3, 3}), unknown(f32, {1, 1, 5, 5})}, ErrorKind::ShapeRule, "window-too-large",
         "dilated kernel (5) is larger than the padded input (3)", -1},
        {"integer_data", "Convolution", attributes_of(plain2d),
         {unknown(ElementType::i32, {1, 3, 5, 5}), unknown(ElementType::i32, {4, 3, 3, 3})}, ErrorKind::Type,
         "type-unsupported", "i32", 0},
        {"types_differ", "Convolution", attributes_of(plain2d),
         {unknown(f32, {1, 3, 5, 5}), unknown(ElementType::f16, {4, 3, 3, 3})}, ErrorKind::Type, "type-mismatch", "f16",
         1},
        {"output_shape_length", "ConvolutionBackpropData", attributes_of(plain2d),
         {unknown(f32, {1, 3, 5, 5}), unknown(f32, {3, 2, 3, 3}), known(i64s({4, 4, 4}))}, ErrorKind::ShapeRule,
         "dims-mismatch", "has 3 values", 2},
        {"output_shape_zero", "ConvolutionBackpropData", attributes_of(plain2d),
         {unknown(f32, {1, 3, 5, 5}), unknown(f32, {3, 2, 3, 3}), known(i64s({0, 4}))}, ErrorKind::Value,
         "output-shape-invalid", "output_shape[0] = 0", 2},
        {"output_shape_float", "ConvolutionBackpropData", attributes_of(plain2d),
         {unknown(f32, {1, 3, 5, 5}), unknown(f32, {3, 2, 3, 3}), unknown(f32, {2})}, ErrorKind::Type,
         "type-unsupported", "integer", 2},
        {"backprop_output_too_small", "ConvolutionBackpropData", attributes_of({{1, 1}, {1, 1}, {1, 1}, {1, 1}}),
         {unknown(f32, {1, 1, 1, 1}), unknown(f32, {1, 1, 1, 1})}, ErrorKind::ShapeRule, "output-size-invalid",
         "would be -1", -1},
    };
    for (const Row& row : rows) {
        SCOPED_TRACE(row.name);
        EXPECT_TRUE(throws_error([&] { OpTester(row.type, 1, row.attributes).infer(row.inputs); }, row.kind, row.code,
                                 row.text, row.port));
    }
    struct AttrRow {
        const char* name;
        std::vector<IrAttribute> attributes;
        const char* text;
    };
    const AttrRow attr_rows[] = {
        {"stride_zero", {attr("strides", "0,1"), attr("pads_begin", "0,0"), attr("pads_end", "0,0")}, "'strides'"},
        {"dilation_zero",
         {attr("strides", "1,1"), attr("dilations", "1,0"), attr("pads_begin", "0,0"), attr("pads_end", "0,0")},
         "'dilations'"},
        {"negative_pad", {attr("strides", "1,1"), attr("pads_begin", "-1,0"), attr("pads_end", "0,0")}, "'pads_begin'"},
        {"unknown_auto_pad", {attr("strides", "1,1"), attr("auto_pad", "full")}, "'auto_pad'"},
    };
    for (const AttrRow& row : attr_rows) {
        SCOPED_TRACE(row.name);
        EXPECT_TRUE(throws_error([&] { OpTester("Convolution", 1, row.attributes).attrs(); }, ErrorKind::Attribute,
                                 "attribute-invalid", row.text));
    }
    EXPECT_TRUE(throws_error([] { OpTester("Convolution", 1, {attr("strides", "1,1")}).attrs(); }, ErrorKind::Attribute,
                             "attribute-missing", "pads_begin"));
}

}  // namespace
}  // namespace irlite::testing
