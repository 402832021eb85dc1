"""bench/workloads.py - what the harness measures, one entry per table row.

  name     row label
  model    a builder in models.py (the same GraphDef for tfsess and
           TensorFlow, the equivalent ONNX model for ONNX Runtime)
  mode     "run" (tfs_session_run / Session.run) or "callable"
           (tfs_callable_run / Session.make_callable); ONNX Runtime always
           times InferenceSession.run
  threads  callers running at once (throughput: wall time / total runs)
  per      the time is divided by this (per-node cost of the chain,
           per-iteration cost of a loop)
  target   the issue's goal, for the notes column
  eager    instead of model/mode: work for eager_bench / tf_eager_bench.py
           ("add", "fn10", "fn10_graph"); ONNX Runtime has no eager mode
  skip     {engine: reason} for engines that do not run this row
  group    "basic" (the rows above, models.py) or "arch" (ARCH_WORKLOADS:
           real architectures, arch_models.py; every engine gets the same
           input and its output is checked against TensorFlow's)
  intra    threads each engine may use inside one run (arch rows: tfsess's
           and TensorFlow's intra- and inter-op pools, ONNX Runtime's
           intra_op_num_threads, OpenVINO's INFERENCE_NUM_THREADS, LiteRT's
           num_threads)
  batch    the batch size (arch rows)
  sm       (SM_WORKLOADS, group "savedmodel") a SavedModel built by
           saved_models.py, loaded in a fresh process per load by tfsess
           (sm_bench) and by TensorFlow's TF1 and TF2 loaders
           (tf_sm_bench.py)

A new workload is a new entry here (and a builder in models.py when it
needs a new graph).
"""

WORKLOADS = [
    dict(name="1-node graph, run", model="one_node", mode="run",
         target="tfsess <= 3 us"),
    dict(name="1-node graph, callable", model="one_node", mode="callable",
         target="tfsess <= 1 us"),
    dict(name="chain of 1,000 scalar Adds, per node", model="chain",
         mode="callable", per=1000, target="tfsess <= 0.3 us/node"),
    dict(name="MLP 784-512-512-10, batch 1", model="mlp_b1",
         target=">= 1.2x TF, >= 1.0x ORT"),
    dict(name="MLP 784-512-512-10, batch 256", model="mlp_b256",
         target=">= 1.2x TF, >= 1.0x ORT"),
    dict(name="CNN (conv-BN-ReLU-pool x3, dense), batch 1", model="cnn_b1",
         target=">= 1.2x TF, >= 1.0x ORT"),
    dict(name="CNN (conv-BN-ReLU-pool x3, dense), batch 32",
         model="cnn_b32", target=">= 1.2x TF, >= 1.0x ORT"),
    dict(name="MLP batch 1, 8 threads calling run", model="mlp_b1",
         mode="run", threads=8, target="throughput"),
    dict(name="MatMul 1024x1024x1024", model="matmul_1024",
         target="GEMM speed"),
    dict(name="while loop of 1,000 (TF1 Switch/Merge), per iteration",
         model="while_v1_1000", per=1000,
         target="per-iteration cost of TF1 control flow"),
    dict(name="while loop of 1,000 (functional While), per iteration",
         model="while_v2_1000", per=1000,
         target="While as tf.while_loop writes it; lowered by default"),
    dict(name="while loop of 1,000 (While, lowering off), per iteration",
         model="while_v2nolower_1000", per=1000,
         target="the While kernel calling its functions",
         skip={"onnxruntime": "same Loop as the While row"}),
    dict(name="while loop of 10,000 (TF1 Switch/Merge), per iteration",
         model="while_v1_10000", per=10000,
         target="per-iteration cost of TF1 control flow"),
    dict(name="while loop of 10,000 (functional While), per iteration",
         model="while_v2_10000", per=10000,
         target="While as tf.while_loop writes it; lowered by default"),
    dict(name="while loop of 10,000 (While, lowering off), per iteration",
         model="while_v2nolower_10000", per=10000,
         target="the While kernel calling its functions",
         skip={"onnxruntime": "same Loop as the While row"}),
    dict(name="digits MLP training step (TF1 graph, SGD), batch 64",
         model="digits_train", mode="run",
         target="training throughput (steps/s = 1e6 / us)",
         skip={"onnxruntime": "no training"}),
    dict(name="eager AddV2 on [2,2], per op", eager="add",
         target="tfsess <= 1 us"),
    dict(name="traced function of 10 ops on [2,2], per call", eager="fn10",
         target="overhead <= 3 us"),
    dict(name="the same 10 ops as a graph, callable", eager="fn10_graph",
         target="the graph's own work"),
]

for _w in WORKLOADS:
    _w["group"] = "basic"

# arch_models.py name -> row label; each at batch 1 and 8, 1 and 2 threads
ARCHS = [
    ("mobilenet_v2", "MobileNetV2 224"),
    ("mobilenet_v3_large", "MobileNetV3Large 224"),
    ("efficientnet_b0", "EfficientNetB0 224"),
    ("resnet50", "ResNet50 224"),
    ("densenet121", "DenseNet121 224"),
    ("inception_v3", "InceptionV3 299"),
    ("bert_encoder", "BERT-style encoder 4x256, seq 128"),
    ("lstm", "LSTM 128, seq 32"),
]
ARCH_BATCHES = (1, 8)
ARCH_THREADS = (1, 2)



def _arch_rows(archs):
    return [dict(name="%s, batch %d, %d thread%s" % (label, b, t,
                                                     "s" * (t > 1)),
                 model="%s_b%d" % (arch, b), group="arch", batch=b, intra=t)
            for arch, label in archs for b in ARCH_BATCHES
            for t in ARCH_THREADS]


ARCH_WORKLOADS = _arch_rows(ARCHS)

# a second set (--models more): other Keras applications and a vision
# transformer written with keras.layers.MultiHeadAttention, the graphs
# users bring beyond the first set's
ARCHS_MORE = [
    ("mobilenet_v3_small", "MobileNetV3Small 224"),
    ("efficientnet_v2_b0", "EfficientNetV2B0 224"),
    ("resnet50_v2", "ResNet50V2 224"),
    ("xception", "Xception 299"),
    ("nasnet_mobile", "NASNetMobile 224"),
    ("convnext_tiny", "ConvNeXtTiny 224"),
    ("vit", "ViT 4x256, patch 16, 224"),
]
ARCH_MORE_WORKLOADS = _arch_rows(ARCHS_MORE)

# SavedModel load time, first call and peak RSS (saved_models.py)
SM_WORKLOADS = [
    dict(name="SavedModel load (Keras export, 100 MB of weights)",
         sm="sm_keras_mlp", group="savedmodel"),
    dict(name="SavedModel load (TF1 SavedModelBuilder, 100 MB of weights)",
         sm="sm_tf1_mlp", group="savedmodel"),
]

MODELS = sorted({w["model"] for w in WORKLOADS if "model" in w})
