/*
 * core/resource_mgr.h - per-session resources: variables, found by
 * (container, name, kind).  A session owns one manager; two sessions on
 * one graph have separate variables.  Thread-safe: lookups and creation
 * lock the manager; a variable's value is guarded by its own mutex.
 * Also the per-step containers a run keeps its TensorArrays in.
 */
#ifndef TFS_CORE_RESOURCE_MGR_H
#define TFS_CORE_RESOURCE_MGR_H

#include <pthread.h>

#include "core/shape.h"
#include "core/tensor.h"

typedef enum {
  TFS_VAR_REF = 0,      /* TF1 VariableV2 ("LegacyVar") */
  TFS_VAR_RESOURCE = 1  /* resource variable ("Var") */
} tfs_var_kind;

typedef struct tfs_variable {
  pthread_mutex_t mu;
  tfs_var_kind kind;
  tfs_dtype dtype;
  tfs_shape shape;     /* declared shape */
  char *container;
  char *name;
  tfs_tensor *value;   /* NULL: uninitialised; guarded by: mu */
} tfs_variable;

typedef struct tfs_resource_mgr tfs_resource_mgr;

/* A new manager with one reference. */
tfs_resource_mgr *tfs_resource_mgr_new(void);
/* Adds a reference (sessions of traced functions share the eager
 * context's variables). */
tfs_resource_mgr *tfs_resource_mgr_ref(tfs_resource_mgr *m);
/* Drops a reference; the last one frees every variable.  Accepts NULL. */
void tfs_resource_mgr_free(tfs_resource_mgr *m);

/* The variable, or NULL.  Borrowed: valid while the manager lives.
 * Allocates nothing (NULL always means absent). */
tfs_variable *tfs_resource_mgr_find(tfs_resource_mgr *m, const char *container,
                                    const char *name, tfs_var_kind kind);

/* The variable, created (uninitialised) if absent.  NULL on OOM. */
tfs_variable *tfs_resource_mgr_find_or_create(tfs_resource_mgr *m,
                                              const char *container,
                                              const char *name,
                                              tfs_var_kind kind,
                                              tfs_dtype dtype,
                                              const tfs_shape *shape,
                                              tfs_status *st);

/* Current value (new reference) or NULL when uninitialised. */
tfs_tensor *tfs_variable_read(tfs_variable *v);

/* Replaces the value; takes ownership of `t`. */
void tfs_variable_write(tfs_variable *v, tfs_tensor *t);

/* Number of variables (tests and diagnostics). */
int tfs_resource_mgr_count(tfs_resource_mgr *m);

/* 1 when some variable (of either kind) lives in `container`, else 0: a
 * TensorFlow container exists from its first resource on, and its error
 * messages say whether the container or only the resource is missing. */
int tfs_resource_mgr_has_container(tfs_resource_mgr *m,
                                   const char *container);

/* ---- other session resources --------------------------------------------
 * Queues and dataset iterators live in the session's manager like
 * variables, found by (container, name, kind), and stay until the manager
 * is freed.  A kind says how to free one and, for resources a kernel may
 * block on (queues), how to wake its waiters when the session closes. */
typedef struct tfs_resource_kind {
  const char *type_name;          /* TensorFlow's, for messages */
  void (*free_fn)(void *obj);
  void (*wake_fn)(void *obj);     /* may be NULL */
} tfs_resource_kind;

/* Makes a new resource for tfs_resource_mgr_lookup_or_create: the object,
 * or NULL with st set. */
typedef void *(*tfs_resource_create_fn)(void *arg, tfs_status *st);

/* The resource (container, name) of `kind`, made by create(arg, st) when
 * absent (under the manager's lock, so two kernels racing get one).
 * *created says whether this call made it.  Borrowed: valid while the
 * manager lives.  NULL with st set when create fails or on OOM. */
void *tfs_resource_mgr_lookup_or_create(tfs_resource_mgr *m,
                                        const char *container,
                                        const char *name,
                                        const tfs_resource_kind *kind,
                                        tfs_resource_create_fn create,
                                        void *arg, int *created,
                                        tfs_status *st);

/* The resource, or NULL when absent.  Borrowed as above. */
void *tfs_resource_mgr_lookup(tfs_resource_mgr *m, const char *container,
                              const char *name,
                              const tfs_resource_kind *kind);

/* Calls every resource's wake_fn (the session is closing: kernels blocked
 * on a queue look at their run's cancellation again).  Accepts NULL. */
void tfs_resource_mgr_wake_all(tfs_resource_mgr *m);

/* A number unique in the process, counting from 0: TensorFlow names a
 * resource without a shared_name "_<n>_<node name>" with it. */
int64_t tfs_resource_unique_id(void);

/* ---- per-step resources ---------------------------------------------------
 * TensorFlow keeps some resources (TensorArrays) in the step's own
 * container, "__per_step_<step id>", which is deleted with everything in
 * it when the step ends, successful or not.  A run holds a slot for one
 * (NULL until a kernel first adds to it) and frees it when it ends.
 * Adding and finding are thread-safe; what is found stays valid until the
 * container is freed. */
typedef struct tfs_step_container tfs_step_container;

/* Frees one resource of a step container. */
typedef void (*tfs_step_resource_free_fn)(void *obj);

/* The container in *slot, made (named after `step_id`) when absent; two
 * threads racing get the same one.  NULL with RESOURCE_EXHAUSTED. */
tfs_step_container *tfs_step_container_get(
    tfs_step_container *_Atomic *slot, int64_t step_id, tfs_status *st);

/* The container's name ("__per_step_<step id>"); borrowed. */
const char *tfs_step_container_name(const tfs_step_container *c);

/* A number unique within the container, counting from 0 (TensorFlow
 * numbers its TensorArrays process-wide; one step is enough to tell the
 * arrays of a step apart). */
int64_t tfs_step_container_next_id(tfs_step_container *c);

/* Adds `obj`, of `type`, under `name` (one resource per name).  Takes
 * ownership of obj: `free_fn` frees it with the container, or at once
 * when adding fails (ALREADY_EXISTS "Resource <container>/<name>/<type>
 * already exists", or RESOURCE_EXHAUSTED). */
int tfs_step_container_add(tfs_step_container *c, const char *name,
                           const char *type, void *obj,
                           tfs_step_resource_free_fn free_fn, tfs_status *st);

/* The resource under (name, type), or NULL.  Borrowed: valid until the
 * container is freed. */
void *tfs_step_container_find(tfs_step_container *c, const char *name,
                              const char *type);

/* Frees the container and every resource in it.  Accepts NULL. */
void tfs_step_container_free(tfs_step_container *c);

#endif
