/*
 * tests/graph_builder/gdef_util.h - helpers of the GraphDef tests: the
 * wire fixtures in tests/data/wire, GraphDefs built by hand with
 * protobuf-c structs, importing and comparing graphs.
 */
#ifndef TFS_TESTS_GDEF_UTIL_H
#define TFS_TESTS_GDEF_UTIL_H

#include "config_proto/pb_util.h"
#include "graph_builder/graph_internal.h"
#include "graph_builder/graphdef_internal.h"
#include "testutil.h"

/* A GraphDef under construction; everything lives in the arena. */
typedef struct gdb {
  tfs_pb_arena a;
  Tensorflow__GraphDef gd;
  Tensorflow__VersionDef ver;
  Tensorflow__NodeDef *nodes[64];
} gdb;

/* A fixture file of tests/data/wire (under $top_srcdir); caller frees. */
tfs_buffer *gd_load(const char *name);

void gdb_init(gdb *b);
void gdb_free(gdb *b);
/* A node; `inputs` is a comma-separated list ("x,y:1,^c") or NULL. */
Tensorflow__NodeDef *gd_node(gdb *b, const char *name, const char *op,
                             const char *inputs);
void gd_attr(gdb *b, Tensorflow__NodeDef *n, const char *key,
             Tensorflow__AttrValue *v);
/* Attr values: unset, type, int, a one-string list, a tensor. */
Tensorflow__AttrValue *gd_av(gdb *b);
Tensorflow__AttrValue *gd_av_type(gdb *b, int dt);
Tensorflow__AttrValue *gd_av_int(gdb *b, int64_t i);
Tensorflow__AttrValue *gd_av_strlist(gdb *b, const char *s);
Tensorflow__AttrValue *gd_av_tensor(gdb *b, Tensorflow__TensorProto *t);
/* An empty TensorProto of dtype dt and shape dims[0..rank). */
Tensorflow__TensorProto *gd_tensor(gdb *b, int dt, int rank,
                                   const int64_t *dims);
/* Placeholder of dtype dt; float Identity of `inputs`. */
Tensorflow__NodeDef *gd_placeholder(gdb *b, const char *name, int dt);
Tensorflow__NodeDef *gd_identity(gdb *b, const char *name, const char *inputs);

/* The GraphDef's bytes (caller frees); imported into g. */
tfs_buffer *gd_pack(gdb *b);
tfs_import_results *gd_import(tfs_graph *g, gdb *b, const tfs_import_options *o,
                              tfs_status *st);

/* A graph holding one float Placeholder "pre"; caller frees. */
tfs_graph *gd_graph_with_pre(void);
/* Importing b into a gd_graph_with_pre() graph fails with `code` and a
 * message containing `msg`, and leaves the graph as it was. */
void gd_expect_reject_opts(gdb *b, const tfs_import_options *o, tfs_code code,
                           const char *msg);
void gd_expect_reject(gdb *b, const char *msg); /* INVALID_ARGUMENT */

/* Same operations, in the same order, with the same op types, devices,
 * attrs, inputs and control inputs. */
void gd_assert_same_graph(tfs_graph *x, tfs_graph *y);
/* GraphDef bytes of g; a new graph imported from bytes (asserting). */
tfs_buffer *gd_export(tfs_graph *g);
tfs_graph *gd_import_buffer(const tfs_buffer *b);

#endif
