/*
 * backends/cpu/cpu_backend.c - the CPU backend as a whole: its kernel
 * tables in one list, its set-up (the GEMM picks its micro-kernel family
 * for this CPU and keeps OpenBLAS to one thread) and what it says of
 * itself for logs.
 */
#include "backends/cpu/cpu_backend.h"

#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/gemm.h"
#include "backends/cpu/tensor_array.h"

const tfs_kernel_def *const tfs_cpu_kernel_tables[] = {
    tfs_cpu_kernels_array_shape, tfs_cpu_kernels_array_transpose,
    tfs_cpu_kernels_array_space, tfs_cpu_kernels_array_concat,
    tfs_cpu_kernels_array_slice, tfs_cpu_kernels_array_gather,
    tfs_cpu_kernels_array_misc, tfs_cpu_kernels_array_resize,
    tfs_cpu_kernels_array_einsum,
    tfs_cpu_kernels_array,  tfs_cpu_kernels_binary, tfs_cpu_kernels_unary,
    tfs_cpu_kernels_matmul, tfs_cpu_kernels_reduce, tfs_cpu_kernels_nn,
    tfs_cpu_kernels_cast,   tfs_cpu_kernels_state,  tfs_cpu_kernels_logging,
    tfs_cpu_kernels_nn_activations, tfs_cpu_kernels_nn_losses,
    tfs_cpu_kernels_conv2d, tfs_cpu_kernels_pool, tfs_cpu_kernels_batch_norm,
    tfs_cpu_kernels_conv_depthwise, tfs_cpu_kernels_conv_transpose,
    tfs_cpu_kernels_divmod, tfs_cpu_kernels_compare,
    tfs_cpu_kernels_unary_math, tfs_cpu_kernels_select,
    tfs_cpu_kernels_argminmax, tfs_cpu_kernels_batch_matmul,
    tfs_cpu_kernels_fused_matmul, tfs_cpu_kernels_layer_norm,
    tfs_cpu_kernels_lstm_gates, tfs_cpu_kernels_lstm_seq,
    tfs_cpu_kernels_matmul_sum,
    tfs_cpu_kernels_batch_matmul_perm,
    tfs_cpu_kernels_scale_shift,
    tfs_cpu_kernels_fused_conv,
    tfs_cpu_kernels_fused_conv_dw,
    tfs_cpu_kernels_fused_dw_pw,
    tfs_cpu_kernels_random, tfs_cpu_kernels_random_stateless,
    tfs_cpu_kernels_random_sampling, tfs_cpu_kernels_image_sample_bbox,
    tfs_cpu_kernels_string_format,
    tfs_cpu_kernels_control_flow, tfs_cpu_kernels_functional,
    tfs_cpu_kernels_tensor_array, tfs_cpu_kernels_queue,
    tfs_cpu_kernels_mpi,
    tfs_cpu_kernels_dataset,
    tfs_cpu_kernels_list, tfs_cpu_kernels_segment, tfs_cpu_kernels_unique,
    tfs_cpu_kernels_partition, tfs_cpu_kernels_bits, tfs_cpu_kernels_array_roll,
    tfs_cpu_kernels_scatter_nd, tfs_cpu_kernels_special_math,
    tfs_cpu_kernels_fake_quant, tfs_cpu_kernels_image_nms,
    tfs_cpu_kernels_image_combined_nms, tfs_cpu_kernels_image_crop,
    tfs_cpu_kernels_image_color, tfs_cpu_kernels_matrix_diag,
    tfs_cpu_kernels_matrix_det, tfs_cpu_kernels_sparse,
    tfs_cpu_kernels_parse_example,
    tfs_cpu_kernels_grad_elem, tfs_cpu_kernels_grad_array,
    tfs_cpu_kernels_lookup, tfs_cpu_kernels_string_hash,
    tfs_cpu_kernels_image_scale,
    tfs_cpu_kernels_save_restore,
    tfs_cpu_kernels_image_patches, tfs_cpu_kernels_pool3d,
    tfs_cpu_kernels_pool_argmax, tfs_cpu_kernels_conv3d,
    tfs_cpu_kernels_fft, tfs_cpu_kernels_complex_abs,
    tfs_cpu_kernels_ragged, tfs_cpu_kernels_ragged_variant,
    tfs_cpu_kernels_complex_parts, tfs_cpu_kernels_linalg,
    tfs_cpu_kernels_linalg_decomp,
    tfs_cpu_kernels_string_convert, tfs_cpu_kernels_set_ops,
    tfs_cpu_kernels_ctc_decoder, tfs_cpu_kernels_lstm_cell,
    tfs_cpu_kernels_string, tfs_cpu_kernels_string_split,
    tfs_cpu_kernels_string_regex,
    tfs_cpu_kernels_training, tfs_cpu_kernels_training_sparse,
    tfs_cpu_kernels_conv_grad_filter, tfs_cpu_kernels_conv_depthwise_grad,
    tfs_cpu_kernels_pool_grad, tfs_cpu_kernels_batch_norm_grad,
    tfs_cpu_kernels_image_grad,
    NULL,
};

void tfs_cpu_backend_init(void) { tfs_gemm_init(); }

const char *tfs_cpu_backend_describe(void) { return tfs_gemm_describe(); }
