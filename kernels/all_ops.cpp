// The one list of ops irlite runs. Adding an op: write kernels/<family>/<op>.cpp defining
// `OpDef make_<op>_op()` (or several, one per version), declare it here and add it to the table.
// The registry rejects overlapping (type, opset) pairs, and tests/op_table_test.cpp fails when an
// op has no unit test.
#include "kernels/all_ops.hpp"

namespace irlite {

// Model boundaries and constants.
OpDef make_parameter_op();
OpDef make_result_op();
OpDef make_const_op();

// Data movement.
OpDef make_slice_op();
OpDef make_variadic_split_op();
OpDef make_scatter_nd_update_op();
OpDef make_scatter_nd_update_15_op();
OpDef make_gather_elements_op();
OpDef make_scatter_update_op();
OpDef make_scatter_elements_update_3_op();
OpDef make_scatter_elements_update_12_op();
OpDef make_gather_nd_5_op();
OpDef make_gather_nd_8_op();

// Shape and data movement (reshape-like views, copies, shape subgraphs, types, state).
OpDef make_reshape_op();
OpDef make_squeeze_op();
OpDef make_squeeze_15_op();
OpDef make_unsqueeze_op();
OpDef make_transpose_op();
OpDef make_concat_op();
OpDef make_split_op();
OpDef make_gather_v1_op();
OpDef make_gather_v7_op();
OpDef make_gather_v8_op();
OpDef make_strided_slice_op();
OpDef make_tile_op();
OpDef make_pad_v1_op();
OpDef make_pad_v12_op();
OpDef make_broadcast_v1_op();
OpDef make_broadcast_v3_op();
OpDef make_shape_of_v1_op();
OpDef make_shape_of_v3_op();
OpDef make_convert_op();
OpDef make_range_v1_op();
OpDef make_range_v4_op();
OpDef make_interpolate_v4_op();
OpDef make_interpolate_v11_op();
OpDef make_read_value_op();
OpDef make_assign_op();
OpDef make_read_value_3_op();
OpDef make_assign_3_op();
OpDef make_depth_to_space_op();
OpDef make_space_to_depth_op();
OpDef make_batch_to_space_op();
OpDef make_space_to_batch_op();
OpDef make_roll_op();
OpDef make_one_hot_op();
OpDef make_non_zero_op();
OpDef make_shuffle_channels_opset1_op();
OpDef make_shuffle_channels_op();

// Sub-graphs: layers with a body (engine/subgraph.hpp).
OpDef make_tensor_iterator_op();
OpDef make_loop_op();
OpDef make_if_op();

// Elementwise arithmetic.
OpDef make_add_op();
OpDef make_multiply_op();
OpDef make_subtract_op();
OpDef make_divide_op();
OpDef make_power_op();
OpDef make_maximum_op();
OpDef make_minimum_op();
OpDef make_squared_difference_op();
OpDef make_equal_op();
OpDef make_not_equal_op();
OpDef make_less_op();
OpDef make_less_equal_op();
OpDef make_greater_op();
OpDef make_greater_equal_op();
OpDef make_logical_and_op();
OpDef make_logical_or_op();
OpDef make_logical_xor_op();
OpDef make_select_op();
OpDef make_mod_op();
OpDef make_floor_mod_op();
OpDef make_bitwise_and_op();
OpDef make_bitwise_or_op();
OpDef make_bitwise_xor_op();
OpDef make_bitwise_not_op();
OpDef make_cum_sum_op();
OpDef make_top_k_1_op();
OpDef make_top_k_3_op();
OpDef make_top_k_11_op();
// Unary math and activations.
OpDef make_exp_op();
OpDef make_log_op();
OpDef make_sqrt_op();
OpDef make_erf_op();
OpDef make_sin_op();
OpDef make_cos_op();
OpDef make_tan_op();
OpDef make_asin_op();
OpDef make_acos_op();
OpDef make_atan_op();
OpDef make_sinh_op();
OpDef make_cosh_op();
OpDef make_asinh_op();
OpDef make_acosh_op();
OpDef make_atanh_op();
OpDef make_softsign_op();
OpDef make_selu_op();
OpDef make_hard_sigmoid_op();
OpDef make_abs_op();
OpDef make_negative_op();
OpDef make_sign_op();
OpDef make_floor_op();
OpDef make_ceiling_op();
OpDef make_round_op();
OpDef make_logical_not_op();
OpDef make_relu_op();
OpDef make_sigmoid_op();
OpDef make_tanh_op();
OpDef make_elu_op();
OpDef make_gelu_2_op();
OpDef make_gelu_7_op();
OpDef make_hswish_op();
OpDef make_hsigmoid_op();
OpDef make_softplus_op();
OpDef make_mish_op();
OpDef make_clamp_op();
OpDef make_swish_op();
OpDef make_prelu_op();

// Numeric NN ops (MatMul, convolution, pooling, reductions, softmax, normalization).
OpDef make_mat_mul_op();
OpDef make_convolution_op();
OpDef make_group_convolution_op();
OpDef make_convolution_backprop_data_op();
OpDef make_group_convolution_backprop_data_op();
OpDef make_max_pool_1_op();
OpDef make_max_pool_8_op();
OpDef make_max_pool_14_op();
OpDef make_avg_pool_1_op();
OpDef make_avg_pool_14_op();
OpDef make_avg_pool_16_op();
OpDef make_reduce_sum_op();
OpDef make_reduce_mean_op();
OpDef make_reduce_max_op();
OpDef make_reduce_min_op();
OpDef make_reduce_prod_op();
OpDef make_reduce_l1_op();
OpDef make_reduce_l2_op();
OpDef make_reduce_logical_and_op();
OpDef make_reduce_logical_or_op();
OpDef make_softmax_1_op();
OpDef make_softmax_8_op();
OpDef make_log_softmax_op();
OpDef make_batch_norm_inference_1_op();
OpDef make_batch_norm_inference_5_op();
OpDef make_mvn_1_op();
OpDef make_mvn_6_op();
OpDef make_normalize_l2_op();
OpDef make_einsum_op();
OpDef make_lrn_op();
OpDef make_grid_sample_op();
OpDef make_group_normalization_op();

// Quantization.
OpDef make_fake_quantize_op();

// Object detection.
OpDef make_prior_box_1_op();
OpDef make_prior_box_8_op();
OpDef make_prior_box_clustered_op();
OpDef make_detection_output_1_op();
OpDef make_detection_output_8_op();
OpDef make_nms_1_op();
OpDef make_nms_3_op();
OpDef make_nms_4_op();
OpDef make_nms_5_op();
OpDef make_nms_9_op();
OpDef make_reorg_yolo_op();
OpDef make_region_yolo_op();
OpDef make_roi_pooling_op();
OpDef make_roi_align_3_op();
OpDef make_roi_align_9_op();
OpDef make_experimental_detectron_roi_feature_extractor_op();
OpDef make_experimental_detectron_detection_output_op();
OpDef make_experimental_detectron_prior_grid_generator_op();
OpDef make_experimental_detectron_topk_rois_op();
OpDef make_proposal_1_op();
OpDef make_proposal_4_op();
OpDef make_experimental_detectron_generate_proposals_op();
OpDef make_generate_proposals_op();

// Sequences.
OpDef make_ctc_greedy_decoder_op();
OpDef make_ctc_greedy_decoder_seq_len_op();
OpDef make_scaled_dot_product_attention_op();
OpDef make_lstm_cell_1_op();
OpDef make_lstm_cell_4_op();
OpDef make_lstm_sequence_5_op();
OpDef make_gru_cell_3_op();
OpDef make_gru_sequence_5_op();
OpDef make_rnn_cell_3_opset1_op();
OpDef make_rnn_cell_3_op();
OpDef make_rnn_sequence_5_op();

namespace {

OpRegistry build_registry() {
    OpRegistry r;
    for (auto make : {
             make_parameter_op,
             make_result_op,
             make_const_op,
             make_slice_op,
             make_variadic_split_op,
             make_scatter_nd_update_op,
             make_scatter_nd_update_15_op,
             make_scatter_update_op,
             make_scatter_elements_update_3_op,
             make_scatter_elements_update_12_op,
             make_gather_nd_5_op,
             make_gather_nd_8_op,
             make_gather_elements_op,
             make_reshape_op,
             make_squeeze_op,
             make_squeeze_15_op,
             make_unsqueeze_op,
             make_transpose_op,
             make_concat_op,
             make_split_op,
             make_gather_v1_op,
             make_gather_v7_op,
             make_gather_v8_op,
             make_strided_slice_op,
             make_tile_op,
             make_pad_v1_op,
             make_pad_v12_op,
             make_broadcast_v1_op,
             make_broadcast_v3_op,
             make_shape_of_v1_op,
             make_shape_of_v3_op,
             make_convert_op,
             make_range_v1_op,
             make_range_v4_op,
             make_interpolate_v4_op,
             make_interpolate_v11_op,
             make_read_value_op,
             make_assign_op,
             make_read_value_3_op,
             make_assign_3_op,
             make_depth_to_space_op,
             make_space_to_depth_op,
             make_batch_to_space_op,
             make_space_to_batch_op,
             make_roll_op,
             make_one_hot_op,
             make_non_zero_op,
             make_shuffle_channels_opset1_op,
             make_shuffle_channels_op,
             make_tensor_iterator_op,
             make_loop_op,
             make_if_op,
             make_add_op,
             make_multiply_op,
             make_subtract_op,
             make_divide_op,
             make_power_op,
             make_maximum_op,
             make_minimum_op,
             make_squared_difference_op,
             make_equal_op,
             make_not_equal_op,
             make_less_op,
             make_less_equal_op,
             make_greater_op,
             make_greater_equal_op,
             make_logical_and_op,
             make_logical_or_op,
             make_logical_xor_op,
             make_select_op,
             make_mod_op,
             make_floor_mod_op,
             make_bitwise_and_op,
             make_bitwise_or_op,
             make_bitwise_xor_op,
             make_bitwise_not_op,
             make_cum_sum_op,
             make_top_k_1_op,
             make_top_k_3_op,
             make_top_k_11_op,
             make_exp_op,
             make_log_op,
             make_sqrt_op,
             make_erf_op,
             make_sin_op,
             make_cos_op,
             make_tan_op,
             make_asin_op,
             make_acos_op,
             make_atan_op,
             make_sinh_op,
             make_cosh_op,
             make_asinh_op,
             make_acosh_op,
             make_atanh_op,
             make_softsign_op,
             make_selu_op,
             make_hard_sigmoid_op,
             make_abs_op,
             make_negative_op,
             make_sign_op,
             make_floor_op,
             make_ceiling_op,
             make_round_op,
             make_logical_not_op,
             make_relu_op,
             make_sigmoid_op,
             make_tanh_op,
             make_elu_op,
             make_gelu_2_op,
             make_gelu_7_op,
             make_hswish_op,
             make_hsigmoid_op,
             make_softplus_op,
             make_mish_op,
             make_clamp_op,
             make_swish_op,
             make_prelu_op,
             make_mat_mul_op,
             make_convolution_op,
             make_group_convolution_op,
             make_convolution_backprop_data_op,
             make_group_convolution_backprop_data_op,
             make_max_pool_1_op,
             make_max_pool_8_op,
             make_max_pool_14_op,
             make_avg_pool_1_op,
             make_avg_pool_14_op,
             make_avg_pool_16_op,
             make_reduce_sum_op,
             make_reduce_mean_op,
             make_reduce_max_op,
             make_reduce_min_op,
             make_reduce_prod_op,
             make_reduce_l1_op,
             make_reduce_l2_op,
             make_reduce_logical_and_op,
             make_reduce_logical_or_op,
             make_softmax_1_op,
             make_softmax_8_op,
             make_log_softmax_op,
             make_batch_norm_inference_1_op,
             make_batch_norm_inference_5_op,
             make_mvn_1_op,
             make_mvn_6_op,
             make_normalize_l2_op,
             make_einsum_op,
             make_lrn_op,
             make_grid_sample_op,
             make_group_normalization_op,
             make_fake_quantize_op,
             make_ctc_greedy_decoder_op,
             make_ctc_greedy_decoder_seq_len_op,
             make_scaled_dot_product_attention_op,
             make_lstm_cell_1_op,
             make_lstm_cell_4_op,
             make_lstm_sequence_5_op,
             make_gru_cell_3_op,
             make_gru_sequence_5_op,
             make_rnn_cell_3_opset1_op,
             make_rnn_cell_3_op,
             make_rnn_sequence_5_op,
             make_prior_box_1_op,
             make_prior_box_8_op,
             make_prior_box_clustered_op,
             make_detection_output_1_op,
             make_detection_output_8_op,
             make_nms_1_op,
             make_nms_3_op,
             make_nms_4_op,
             make_nms_5_op,
             make_nms_9_op,
             make_reorg_yolo_op,
             make_region_yolo_op,
             make_roi_pooling_op,
             make_roi_align_3_op,
             make_roi_align_9_op,
             make_experimental_detectron_roi_feature_extractor_op,
             make_experimental_detectron_detection_output_op,
             make_experimental_detectron_prior_grid_generator_op,
             make_experimental_detectron_topk_rois_op,
             make_proposal_1_op,
             make_proposal_4_op,
             make_experimental_detectron_generate_proposals_op,
             make_generate_proposals_op,
         })
        r.add(make());
    return r;
}

}  // namespace

const OpRegistry& builtin_ops() {
    static const OpRegistry registry = build_registry();
    return registry;
}

}  // namespace irlite
