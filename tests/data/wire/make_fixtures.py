#!/usr/bin/env python3
"""tests/data/wire/make_fixtures.py - writes the wire-format fixtures that
tests/graph_builder/test_graphdef.c and tests/config_proto/test_config.c
read: ConfigProto / RunOptions bytes and GraphDefs serialized by TensorFlow
itself, plus the inputs and TensorFlow's outputs for the graphs.

Run with a Python that has TensorFlow 2.21 (never needed by `make check`):
    python3 tests/data/wire/make_fixtures.py [OUTDIR]
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.protobuf import config_pb2, rewriter_config_pb2  # noqa: E402
from tensorflow.python.framework import meta_graph  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
RC = rewriter_config_pb2.RewriterConfig


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    print(f"{name}: {len(data)} bytes")


def configs():
    write("config_threads.pb",
          config_pb2.ConfigProto(intra_op_parallelism_threads=1,
                                 inter_op_parallelism_threads=1).SerializeToString())
    c = config_pb2.ConfigProto()
    c.device_count["CPU"] = 1
    c.device_count["GPU"] = 0
    c.intra_op_parallelism_threads = 4
    c.inter_op_parallelism_threads = 2
    c.use_per_session_threads = True
    c.session_inter_op_thread_pool.add(num_threads=3)
    c.session_inter_op_thread_pool.add(num_threads=1, global_name="shared")
    c.allow_soft_placement = True
    c.log_device_placement = True
    c.operation_timeout_in_ms = 5000
    c.gpu_options.per_process_gpu_memory_fraction = 0.5
    c.gpu_options.allow_growth = True
    c.gpu_options.visible_device_list = "0,1"
    c.graph_options.place_pruned_graph = True
    c.graph_options.infer_shapes = True
    oo = c.graph_options.optimizer_options
    oo.opt_level = config_pb2.OptimizerOptions.L0
    oo.do_function_inlining = True
    oo.global_jit_level = config_pb2.OptimizerOptions.OFF
    ro = c.graph_options.rewrite_options
    ro.layout_optimizer = RC.OFF
    ro.constant_folding = RC.AGGRESSIVE
    ro.shape_optimization = RC.ON
    ro.remapping = RC.OFF
    ro.arithmetic_optimization = RC.OFF
    ro.dependency_optimization = RC.ON
    ro.loop_optimization = RC.OFF
    ro.function_optimization = RC.ON
    ro.debug_stripper = RC.ON
    ro.disable_model_pruning = True
    ro.scoped_allocator_optimization = RC.ON
    ro.pin_to_host_optimization = RC.OFF
    ro.implementation_selector = RC.OFF
    ro.auto_mixed_precision = RC.ON
    ro.common_subgraph_elimination = RC.OFF
    ro.auto_mixed_precision_cpu = RC.ON
    ro.use_plugin_optimizers = RC.OFF
    ro.experimental_conditional_code_motion = RC.OFF
    ro.disable_meta_optimizer = False
    ro.meta_optimizer_iterations = RC.ONE
    ro.min_graph_nodes = -1
    ro.memory_optimization = RC.MANUAL
    ro.meta_optimizer_timeout_ms = 1500
    ro.fail_on_optimizer_errors = True
    ro.optimizers.extend(["constfold", "arithmetic"])
    c.experimental.executor_type = "SINGLE_THREADED_EXECUTOR"
    c.experimental.disable_thread_spinning = True
    # fields tfsess does not model: must be skipped
    c.rpc_options.compression_algorithm = "gzip"
    c.gpu_options.experimental.use_unified_memory = True
    c.experimental.collective_group_leader = "/job:w"
    write("config_full.pb", c.SerializeToString())
    write("run_options_trace.pb",
          config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE,
                                timeout_in_ms=60000).SerializeToString())


def modeled_configs():
    """ConfigProtos holding only what tfsess models, serialized the way
    TensorFlow does (fields in number order, map entries sorted): parsing
    and serializing them again must give the same bytes."""
    c = config_pb2.ConfigProto()
    c.device_count["GPU"] = 2
    c.device_count["CPU"] = 1
    c.intra_op_parallelism_threads = 3
    c.placement_period = 7
    c.device_filters.extend(["/job:localhost", "/device:CPU:*"])
    c.inter_op_parallelism_threads = -1
    g = c.gpu_options
    g.per_process_gpu_memory_fraction = 0.25
    g.allocator_type = "BFC"
    g.deferred_deletion_bytes = 1 << 20
    g.allow_growth = True
    g.visible_device_list = "1,0"
    g.polling_active_delay_usecs = 10
    g.polling_inactive_delay_msecs = 20
    g.force_gpu_compatible = True
    c.allow_soft_placement = True
    c.log_device_placement = True
    c.use_per_session_threads = True
    go = c.graph_options
    go.enable_recv_scheduling = True
    oo = go.optimizer_options
    oo.do_common_subexpression_elimination = True
    oo.do_constant_folding = True
    oo.opt_level = config_pb2.OptimizerOptions.L0
    oo.do_function_inlining = True
    oo.global_jit_level = config_pb2.OptimizerOptions.ON_2
    oo.max_folded_constant_in_bytes = 4096
    oo.cpu_global_jit = True
    go.build_cost_model = 5
    go.infer_shapes = True
    go.place_pruned_graph = True
    go.enable_bfloat16_sendrecv = True
    go.timeline_step = 3
    go.build_cost_model_after = 9
    ro = go.rewrite_options
    for i, f in enumerate(RC.DESCRIPTOR.fields):
        if f.enum_type is not None and f.enum_type.name == "Toggle":
            setattr(ro, f.name, (RC.ON, RC.OFF, RC.AGGRESSIVE)[i % 3])
    ro.disable_model_pruning = True
    ro.memory_optimization = RC.HEURISTICS
    ro.auto_parallel.enable = True
    ro.auto_parallel.num_replicas = 2
    ro.memory_optimizer_target_node_name_scope = "grad/"
    ro.meta_optimizer_iterations = RC.TWO
    ro.scoped_allocator_opts.enable_op.extend(["CollectiveReduce"])
    ro.min_graph_nodes = 2
    ro.disable_meta_optimizer = True
    ro.meta_optimizer_timeout_ms = 250
    ro.fail_on_optimizer_errors = True
    ro.experimental_disable_compressed_tensor_optimization = True
    ro.experimental_disable_folding_quantization_emulation = True
    ro.disable_tfg_optimizer = True
    ro.cpu_layout_conversion = RC.NCHW_TO_NHWC
    ro.optimizers.extend(["pruning", "constfold", "dependency"])
    ro.custom_optimizers.add(name="MyPass")
    ro.inter_optimizer_verifier_config.verification_timeout_in_ms = 30
    ro.inter_optimizer_verifier_config.structure_verifier = 1
    ro.post_optimization_verifier_config.structure_verifier = 2
    c.operation_timeout_in_ms = 60000
    c.session_inter_op_thread_pool.add(num_threads=4)
    c.session_inter_op_thread_pool.add(num_threads=2, global_name="g")
    c.isolate_session_state = True
    x = c.experimental
    x.executor_type = "SINGLE_THREADED_EXECUTOR"
    x.use_numa_affinity = True
    x.disable_thread_spinning = True
    x.session_metadata.name = "model"
    x.session_metadata.version = 12
    x.optimize_for_static_graph = True
    x.disable_functional_ops_lowering = True
    c.share_cluster_devices_in_session = True
    write("config_modeled.pb", c.SerializeToString(deterministic=True))
    # sub-messages present but empty, and zero values where presence
    # shows on the wire (a map entry, a repeated message)
    d = config_pb2.ConfigProto()
    d.device_count["GPU"] = 0
    d.gpu_options.SetInParent()
    d.graph_options.optimizer_options.SetInParent()
    d.graph_options.rewrite_options.SetInParent()
    d.session_inter_op_thread_pool.add()
    d.experimental.session_metadata.SetInParent()
    write("config_defaults.pb", d.SerializeToString(deterministic=True))


def mlp_graph():
    rng = np.random.RandomState(7)
    w1 = rng.randn(3, 4).astype(np.float32)
    b1 = rng.randn(4).astype(np.float32)
    w2 = rng.randn(4, 2).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        v1 = tf.compat.v1
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, tf.constant(w1, name="w1")),
                                      tf.constant(b1, name="b1")), name="h")
        logits = tf.matmul(h, tf.constant(w2, name="w2"), name="logits")
        y = tf.nn.softmax(logits, name="y")
        with tf.control_dependencies([y]):
            tf.no_op(name="done")
        # constants in every encoding TF writes
        tf.constant(0.5, shape=[2, 3], name="splat")       # float_val splat
        tf.constant([1, 2, 3], dtype=tf.int64, name="i64")  # tensor_content
        tf.constant(7, dtype=tf.int32, name="scalar_i32")   # int_val
        tf.constant([True, False, True], name="bools")       # bool_val list
        tf.constant(["ab", "", "xyz"], name="strs")           # string_val
        tf.constant(np.array([1.5, -2], np.float16), name="halves")
        tf.constant(np.float16(3.0), name="half_scalar")      # half_val
        tf.constant(np.array([1 + 2j], np.complex64), name="cplx")
        tf.constant(np.zeros([0, 2], np.float32), name="empty")
        with g.colocate_with(y):
            tf.identity(y, name="y_copy")                     # _class attr
    xin = rng.randn(5, 3).astype(np.float32)
    with tf.compat.v1.Session(graph=g) as s:
        yout = s.run("y:0", {"x:0": xin})
    return g, xin, yout


def graphs():
    g, xin, yout = mlp_graph()
    write("graph_mlp.pb", g.as_graph_def(add_shapes=True).SerializeToString())
    with g.as_default():
        mgd, _ = meta_graph.export_scoped_meta_graph(graph=g)
    meta_graph.strip_graph_default_valued_attrs(mgd)
    write("graph_mlp_stripped.pb", mgd.graph_def.SerializeToString())
    write("mlp_x.f32", xin.astype("<f4").tobytes())
    write("mlp_y.f32", yout.astype("<f4").tobytes())


if __name__ == "__main__":
    configs()
    modeled_configs()
    graphs()
