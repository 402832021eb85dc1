/*
 * config_proto/pb_text_types.c - the message types tfsess compiles, found
 * by full name (the types a text-format google.protobuf.Any expansion may
 * name), and the names of their oneofs (protobuf-c's descriptors do not
 * carry them; the text parser's messages quote them).
 */
#include "config_proto/pb_text.h"
#include "config_proto/pb_text_internal.h"

#include <stddef.h>
#include <string.h>

#include "proto/allocation_description.pb-c.h"
#include "proto/attr_value.pb-c.h"
#include "proto/config.pb-c.h"
#include "proto/event.pb-c.h"
#include "proto/fingerprint.pb-c.h"
#include "proto/full_type.pb-c.h"
#include "proto/function.pb-c.h"
#include "proto/graph.pb-c.h"
#include "proto/meta_graph.pb-c.h"
#include "proto/node_def.pb-c.h"
#include "proto/op_def.pb-c.h"
#include "proto/resource_handle.pb-c.h"
#include "proto/rewriter_config.pb-c.h"
#include "proto/saved_model.pb-c.h"
#include "proto/saver.pb-c.h"
#include "proto/step_stats.pb-c.h"
#include "proto/tensor.pb-c.h"
#include "proto/tensor_bundle.pb-c.h"
#include "proto/tensor_description.pb-c.h"
#include "proto/tensor_shape.pb-c.h"
#include "proto/tensor_slice.pb-c.h"
#include "proto/types.pb-c.h"
#include "proto/verifier_config.pb-c.h"
#include "proto/versions.pb-c.h"

/* Every top-level message of PROTO_FILES (src/sources.am); nested types
 * are reached through the fields. */
static const ProtobufCMessageDescriptor *const ROOTS[] = {
    &tensorflow__allocation_description__descriptor,
    &tensorflow__attr_value__descriptor,
    &tensorflow__name_attr_list__descriptor,
    &tensorflow__gpuoptions__descriptor,
    &tensorflow__optimizer_options__descriptor,
    &tensorflow__graph_options__descriptor,
    &tensorflow__thread_pool_option_proto__descriptor,
    &tensorflow__session_metadata__descriptor,
    &tensorflow__config_proto__descriptor,
    &tensorflow__tfsess_limits__descriptor,
    &tensorflow__run_options__descriptor,
    &tensorflow__run_metadata__descriptor,
    &tensorflow__tensor_connection__descriptor,
    &tensorflow__callable_options__descriptor,
    &tensorflow__event__descriptor,
    &tensorflow__source_metadata__descriptor,
    &tensorflow__log_message__descriptor,
    &tensorflow__session_log__descriptor,
    &tensorflow__tagged_run_metadata__descriptor,
    &tensorflow__summary_metadata__descriptor,
    &tensorflow__summary__descriptor,
    &tensorflow__fingerprint_def__descriptor,
    &tensorflow__function_def_library__descriptor,
    &tensorflow__function_def__descriptor,
    &tensorflow__gradient_def__descriptor,
    &tensorflow__registered_gradient__descriptor,
    &tensorflow__graph_def__descriptor,
    &tensorflow__any_value__descriptor,
    &tensorflow__meta_graph_def__descriptor,
    &tensorflow__collection_def__descriptor,
    &tensorflow__tensor_info__descriptor,
    &tensorflow__signature_def__descriptor,
    &tensorflow__asset_file_def__descriptor,
    &tensorflow__node_def__descriptor,
    &tensorflow__op_def__descriptor,
    &tensorflow__op_deprecation__descriptor,
    &tensorflow__op_list__descriptor,
    &tensorflow__resource_handle_proto__descriptor,
    &tensorflow__auto_parallel_options__descriptor,
    &tensorflow__scoped_allocator_options__descriptor,
    &tensorflow__rewriter_config__descriptor,
    &tensorflow__saved_model__descriptor,
    &tensorflow__saver_def__descriptor,
    &tensorflow__allocation_record__descriptor,
    &tensorflow__allocator_memory_used__descriptor,
    &tensorflow__node_output__descriptor,
    &tensorflow__memory_stats__descriptor,
    &tensorflow__node_exec_stats__descriptor,
    &tensorflow__device_step_stats__descriptor,
    &tensorflow__step_stats__descriptor,
    &tensorflow__tensor_proto__descriptor,
    &tensorflow__variant_tensor_data_proto__descriptor,
    &tensorflow__bundle_header_proto__descriptor,
    &tensorflow__bundle_entry_proto__descriptor,
    &tensorflow__tensor_description__descriptor,
    &tensorflow__tensor_shape_proto__descriptor,
    &tensorflow__tensor_slice_proto__descriptor,
    &tensorflow__serialized_dtype__descriptor,
    &tensorflow__verifier_config__descriptor,
    &tensorflow__version_def__descriptor,
};

enum { MAX_TYPES = 512 };

/* Depth-first walk over ROOTS and the message types of their fields,
 * each type visited once. */
const ProtobufCMessageDescriptor *tfs_pb__find_message(const char *name,
                                                       size_t len) {
  const ProtobufCMessageDescriptor *seen[MAX_TYPES];
  const ProtobufCMessageDescriptor *stack[MAX_TYPES];
  size_t nseen = 0, nstack = 0;
  for (size_t r = 0; r < sizeof ROOTS / sizeof ROOTS[0]; r++) {
    stack[nstack++] = ROOTS[r];
    while (nstack) {
      const ProtobufCMessageDescriptor *d = stack[--nstack];
      int dup = 0;
      for (size_t i = 0; i < nseen && !dup; i++) dup = seen[i] == d;
      if (dup || nseen == MAX_TYPES) continue;
      seen[nseen++] = d;
      if (strlen(d->name) == len && memcmp(d->name, name, len) == 0)
        return d;
      for (unsigned f = 0; f < d->n_fields; f++)
        if (d->fields[f].type == PROTOBUF_C_TYPE_MESSAGE &&
            nstack < MAX_TYPES)
          stack[nstack++] = d->fields[f].descriptor;
    }
  }
  return NULL;
}

/* ---- oneof names ------------------------------------------------------- */

static const struct {
  const ProtobufCMessageDescriptor *desc;
  size_t case_offset;
  const char *name;
} ONEOFS[] = {
    {&tensorflow__attr_value__descriptor,
     offsetof(Tensorflow__AttrValue, value_case), "value"},
    {&tensorflow__event__descriptor, offsetof(Tensorflow__Event, what_case),
     "what"},
    {&tensorflow__summary__value__descriptor,
     offsetof(Tensorflow__Summary__Value, value_case), "value"},
    {&tensorflow__collection_def__descriptor,
     offsetof(Tensorflow__CollectionDef, kind_case), "kind"},
    {&tensorflow__tensor_info__descriptor,
     offsetof(Tensorflow__TensorInfo, encoding_case), "encoding"},
    {&tensorflow__full_type_def__descriptor,
     offsetof(Tensorflow__FullTypeDef, attr_case), "attr"},
    {&tensorflow__tensor_slice_proto__extent__descriptor,
     offsetof(Tensorflow__TensorSliceProto__Extent, has_length_case),
     "has_length"},
};

const char *tfs_pb__oneof_name(const ProtobufCMessageDescriptor *desc,
                               const ProtobufCFieldDescriptor *field) {
  for (size_t i = 0; i < sizeof ONEOFS / sizeof ONEOFS[0]; i++)
    if (ONEOFS[i].desc == desc &&
        ONEOFS[i].case_offset == field->quantifier_offset)
      return ONEOFS[i].name;
  return "oneof";
}
