/*
 * backends/cpu/cpu_tables.h - the CPU kernel tables, one per file; each
 * ends with an entry whose op is NULL.  Listed in kernel_registry.c.
 */
#ifndef TFS_BACKENDS_CPU_TABLES_H
#define TFS_BACKENDS_CPU_TABLES_H

#include "kernels/kernel.h"

extern const tfs_kernel_def tfs_cpu_kernels_array[];
extern const tfs_kernel_def tfs_cpu_kernels_array_shape[];
extern const tfs_kernel_def tfs_cpu_kernels_array_transpose[];
extern const tfs_kernel_def tfs_cpu_kernels_array_space[];
extern const tfs_kernel_def tfs_cpu_kernels_array_concat[];
extern const tfs_kernel_def tfs_cpu_kernels_array_slice[];
extern const tfs_kernel_def tfs_cpu_kernels_array_gather[];
extern const tfs_kernel_def tfs_cpu_kernels_array_misc[];
extern const tfs_kernel_def tfs_cpu_kernels_array_resize[];
extern const tfs_kernel_def tfs_cpu_kernels_array_einsum[];
extern const tfs_kernel_def tfs_cpu_kernels_binary[];
extern const tfs_kernel_def tfs_cpu_kernels_unary[];
extern const tfs_kernel_def tfs_cpu_kernels_matmul[];
extern const tfs_kernel_def tfs_cpu_kernels_reduce[];
extern const tfs_kernel_def tfs_cpu_kernels_nn[];
extern const tfs_kernel_def tfs_cpu_kernels_nn_activations[];
extern const tfs_kernel_def tfs_cpu_kernels_nn_losses[];
extern const tfs_kernel_def tfs_cpu_kernels_conv2d[];
extern const tfs_kernel_def tfs_cpu_kernels_conv_depthwise[];
extern const tfs_kernel_def tfs_cpu_kernels_conv_transpose[];
extern const tfs_kernel_def tfs_cpu_kernels_pool[];
extern const tfs_kernel_def tfs_cpu_kernels_batch_norm[];
extern const tfs_kernel_def tfs_cpu_kernels_batch_norm_grad[];
extern const tfs_kernel_def tfs_cpu_kernels_pool_grad[];
extern const tfs_kernel_def tfs_cpu_kernels_image_grad[];
extern const tfs_kernel_def tfs_cpu_kernels_cast[];
extern const tfs_kernel_def tfs_cpu_kernels_state[];
extern const tfs_kernel_def tfs_cpu_kernels_training[];
extern const tfs_kernel_def tfs_cpu_kernels_training_sparse[];
extern const tfs_kernel_def tfs_cpu_kernels_logging[];
extern const tfs_kernel_def tfs_cpu_kernels_functional[];
extern const tfs_kernel_def tfs_cpu_kernels_list[];
extern const tfs_kernel_def tfs_cpu_kernels_divmod[];
extern const tfs_kernel_def tfs_cpu_kernels_compare[];
extern const tfs_kernel_def tfs_cpu_kernels_unary_math[];
extern const tfs_kernel_def tfs_cpu_kernels_select[];
extern const tfs_kernel_def tfs_cpu_kernels_argminmax[];
extern const tfs_kernel_def tfs_cpu_kernels_batch_matmul[];
extern const tfs_kernel_def tfs_cpu_kernels_fused_matmul[];
extern const tfs_kernel_def tfs_cpu_kernels_layer_norm[];
extern const tfs_kernel_def tfs_cpu_kernels_scale_shift[];
extern const tfs_kernel_def tfs_cpu_kernels_lstm_gates[];
extern const tfs_kernel_def tfs_cpu_kernels_lstm_seq[];
extern const tfs_kernel_def tfs_cpu_kernels_matmul_sum[];
extern const tfs_kernel_def tfs_cpu_kernels_batch_matmul_perm[];
extern const tfs_kernel_def tfs_cpu_kernels_fused_conv[];
extern const tfs_kernel_def tfs_cpu_kernels_fused_conv_dw[];
extern const tfs_kernel_def tfs_cpu_kernels_fused_dw_pw[];
extern const tfs_kernel_def tfs_cpu_kernels_random[];
extern const tfs_kernel_def tfs_cpu_kernels_random_stateless[];
extern const tfs_kernel_def tfs_cpu_kernels_random_sampling[];
extern const tfs_kernel_def tfs_cpu_kernels_image_sample_bbox[];
extern const tfs_kernel_def tfs_cpu_kernels_string_format[];
extern const tfs_kernel_def tfs_cpu_kernels_control_flow[];
extern const tfs_kernel_def tfs_cpu_kernels_segment[];
extern const tfs_kernel_def tfs_cpu_kernels_queue[];
extern const tfs_kernel_def tfs_cpu_kernels_mpi[];
extern const tfs_kernel_def tfs_cpu_kernels_dataset[];
extern const tfs_kernel_def tfs_cpu_kernels_unique[];
extern const tfs_kernel_def tfs_cpu_kernels_partition[];
extern const tfs_kernel_def tfs_cpu_kernels_bits[];
extern const tfs_kernel_def tfs_cpu_kernels_array_roll[];
extern const tfs_kernel_def tfs_cpu_kernels_scatter_nd[];
extern const tfs_kernel_def tfs_cpu_kernels_special_math[];
extern const tfs_kernel_def tfs_cpu_kernels_fake_quant[];
extern const tfs_kernel_def tfs_cpu_kernels_image_nms[];
extern const tfs_kernel_def tfs_cpu_kernels_image_combined_nms[];
extern const tfs_kernel_def tfs_cpu_kernels_image_crop[];
extern const tfs_kernel_def tfs_cpu_kernels_image_color[];
extern const tfs_kernel_def tfs_cpu_kernels_matrix_diag[];
extern const tfs_kernel_def tfs_cpu_kernels_matrix_det[];
extern const tfs_kernel_def tfs_cpu_kernels_grad_elem[];
extern const tfs_kernel_def tfs_cpu_kernels_grad_array[];
extern const tfs_kernel_def tfs_cpu_kernels_lookup[];
extern const tfs_kernel_def tfs_cpu_kernels_string_hash[];
extern const tfs_kernel_def tfs_cpu_kernels_image_scale[];
extern const tfs_kernel_def tfs_cpu_kernels_save_restore[];
extern const tfs_kernel_def tfs_cpu_kernels_sparse[];
extern const tfs_kernel_def tfs_cpu_kernels_parse_example[];
extern const tfs_kernel_def tfs_cpu_kernels_image_patches[];
extern const tfs_kernel_def tfs_cpu_kernels_pool3d[];
extern const tfs_kernel_def tfs_cpu_kernels_pool_argmax[];
extern const tfs_kernel_def tfs_cpu_kernels_conv3d[];
extern const tfs_kernel_def tfs_cpu_kernels_fft[];
extern const tfs_kernel_def tfs_cpu_kernels_complex_abs[];
extern const tfs_kernel_def tfs_cpu_kernels_ragged[];
extern const tfs_kernel_def tfs_cpu_kernels_ragged_variant[];
extern const tfs_kernel_def tfs_cpu_kernels_complex_parts[];
extern const tfs_kernel_def tfs_cpu_kernels_linalg[];
extern const tfs_kernel_def tfs_cpu_kernels_linalg_decomp[];
extern const tfs_kernel_def tfs_cpu_kernels_string_convert[];
extern const tfs_kernel_def tfs_cpu_kernels_set_ops[];
extern const tfs_kernel_def tfs_cpu_kernels_ctc_decoder[];
extern const tfs_kernel_def tfs_cpu_kernels_lstm_cell[];
extern const tfs_kernel_def tfs_cpu_kernels_string[];
extern const tfs_kernel_def tfs_cpu_kernels_string_split[];
extern const tfs_kernel_def tfs_cpu_kernels_string_regex[];
extern const tfs_kernel_def tfs_cpu_kernels_conv_grad_filter[];
extern const tfs_kernel_def tfs_cpu_kernels_conv_depthwise_grad[];

#endif
