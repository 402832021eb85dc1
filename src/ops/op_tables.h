/*
 * ops/op_tables.h - the op family tables the registry reads.  Each table
 * ends with an entry whose name is NULL.  Adding a family: declare it here
 * and list it in registry.c.
 */
#ifndef TFS_OPS_OP_TABLES_H
#define TFS_OPS_OP_TABLES_H

#include "ops/op_def.h"

extern const tfs_op_spec tfs_ops_array[];
extern const tfs_op_spec tfs_ops_math[];
extern const tfs_op_spec tfs_ops_random[];
extern const tfs_op_spec tfs_ops_random_stateless[];
extern const tfs_op_spec tfs_ops_random_sampling[];
extern const tfs_op_spec tfs_ops_nn[];
extern const tfs_op_spec tfs_ops_state[];
extern const tfs_op_spec tfs_ops_training[];
extern const tfs_op_spec tfs_ops_logging[];
extern const tfs_op_spec tfs_ops_functional[];
extern const tfs_op_spec tfs_ops_list[];
extern const tfs_op_spec tfs_ops_bits[];
extern const tfs_op_spec tfs_ops_control[];
extern const tfs_op_spec tfs_ops_control_flow[];
extern const tfs_op_spec tfs_ops_fused[];
extern const tfs_op_spec tfs_ops_segment[];
extern const tfs_op_spec tfs_ops_special[];
extern const tfs_op_spec tfs_ops_image[];
extern const tfs_op_spec tfs_ops_matrix[];
extern const tfs_op_spec tfs_ops_parse_example[];
extern const tfs_op_spec tfs_ops_grad[];
extern const tfs_op_spec tfs_ops_conv_grad[];
extern const tfs_op_spec tfs_ops_linalg[];
extern const tfs_op_spec tfs_ops_lookup[];
extern const tfs_op_spec tfs_ops_io[];
extern const tfs_op_spec tfs_ops_nn3d[];
extern const tfs_op_spec tfs_ops_spectral[];
extern const tfs_op_spec tfs_ops_ragged[];
extern const tfs_op_spec tfs_ops_input[];
extern const tfs_op_spec tfs_ops_extra[];
extern const tfs_op_spec tfs_ops_string[];
extern const tfs_op_spec tfs_ops_nn_grad[];
extern const tfs_op_spec tfs_ops_mpi[];

#endif
