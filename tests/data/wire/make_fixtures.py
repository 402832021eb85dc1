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
    graphs()
