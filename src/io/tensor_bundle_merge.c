/*
 * io/tensor_bundle_merge.c - TensorFlow's MergeBundles: the last step of
 * a sharded save.  The inputs' entries are gathered in key order, their
 * data files renamed to the destination's numbering and one index
 * written for all of them (see tfsess/checkpoint.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config_proto/pb_util.h"
#include "core/alloc.h"
#include "core/status.h"
#include "io/sstable.h"
#include "io/tensor_bundle.h"
#include "tfsess/io.h"

typedef struct {
  const char *key; /* borrowed from a reader */
  size_t klen;
  const Tensorflow__BundleEntryProto *e;
  int shard; /* the merged shard id (plain and slice entries) */
  Tensorflow__TensorSliceProto **slices; /* a parent's joined list */
  size_t nslices;
} m_entry;

typedef struct {
  tfs_bundle_reader **readers;
  int nreaders;
  m_entry *ents;
  size_t n, cap;
  char **shard_files; /* old data file names, by merged shard id */
  int nshards, shard_cap;
} merge_state;

static int key_cmp(const char *a, size_t al, const char *b, size_t bl) {
  int c = memcmp(a, b, al < bl ? al : bl);
  return c ? c : al < bl ? -1 : al > bl;
}

/* Position of key in the sorted entries; *found when it is there. */
static size_t lookup(const merge_state *m, const char *key, size_t klen,
                     int *found) {
  size_t lo = 0, hi = m->n;
  *found = 0;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = key_cmp(m->ents[mid].key, m->ents[mid].klen, key, klen);
    if (!c) {
      *found = 1;
      return mid;
    }
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The merged id of data file `name` (taken), numbered on first use. */
static int shard_id(merge_state *m, char *name, tfs_status *st) {
  for (int i = 0; i < m->nshards; i++)
    if (!strcmp(m->shard_files[i], name)) {
      tfs_free(name);
      return i;
    }
  if (m->nshards == m->shard_cap) {
    int cap = m->shard_cap ? 2 * m->shard_cap : 8;
    char **f = tfs_realloc(m->shard_files, (size_t)cap * sizeof *f);
    if (!f) goto oom;
    m->shard_files = f;
    m->shard_cap = cap;
  }
  m->shard_files[m->nshards] = name;
  return m->nshards++;
oom:
  tfs_free(name);
  tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
  return -1;
}

/* Adds the parent entry e's slices to the merged parent at i. */
static int join_slices(m_entry *x, const Tensorflow__BundleEntryProto *e,
                       const char *prefix, tfs_status *st) {
  if (!e->n_slices) {
    tfs_status_setf(st, TFS_INTERNAL, "Duplicate tensor keyed by %.*s; "
                    "attempting to merge in a non-slice bundle entry",
                    (int)x->klen, x->key);
    return -1;
  }
  int same = x->e->dtype == e->dtype && x->e->shape && e->shape &&
             x->e->shape->n_dim == e->shape->n_dim;
  for (size_t d = 0; same && d < e->shape->n_dim; d++)
    same = x->e->shape->dim[d]->size == e->shape->dim[d]->size;
  if (!same) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Slices of tensor %.*s in %s differ in dtype or shape "
                    "from those merged before", (int)x->klen, x->key, prefix);
    return -1;
  }
  if (!x->slices) {
    x->slices = tfs_malloc(x->e->n_slices * sizeof *x->slices);
    if (!x->slices) goto oom;
    memcpy(x->slices, x->e->slices, x->e->n_slices * sizeof *x->slices);
    x->nslices = x->e->n_slices;
  }
  Tensorflow__TensorSliceProto **s =
      tfs_realloc(x->slices, (x->nslices + e->n_slices) * sizeof *s);
  if (!s) goto oom;
  memcpy(s + x->nslices, e->slices, e->n_slices * sizeof *s);
  x->slices = s;
  x->nslices += e->n_slices;
  return 0;
oom:
  tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
  return -1;
}

/* MergeOneBundle: the entries of one input. */
static int merge_one(merge_state *m, tfs_bundle_reader *r, const char *prefix,
                     tfs_status *st) {
  int nsh = tfs_bundle__num_shards(r);
  for (int i = 0; i < tfs_bundle__num_entries(r); i++) {
    const char *key;
    size_t klen;
    const Tensorflow__BundleEntryProto *e = tfs_bundle__entry(r, i, &key,
                                                              &klen);
    int found;
    size_t at = lookup(m, key, klen, &found);
    if (found && !m->ents[at].e->n_slices) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Duplicate tensor keyed by %.*s encountered, when "
                      "merging prefix: %s", (int)klen, key, prefix);
      return -1;
    }
    if (found) {
      if (join_slices(&m->ents[at], e, prefix, st)) return -1;
      continue;
    }
    if (e->shard_id < 0 || e->shard_id >= nsh) {
      tfs_status_setf(st, TFS_DATA_LOSS, "%s: bad shard id %d", prefix,
                      (int)e->shard_id);
      return -1;
    }
    char *name = tfs_bundle__data_name(prefix, e->shard_id, nsh);
    int id = name ? shard_id(m, name, st) : -1;
    if (id < 0) {
      if (!name) tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
      return -1;
    }
    if (m->n == m->cap) {
      size_t cap = m->cap ? 2 * m->cap : 64;
      m_entry *g = tfs_realloc(m->ents, cap * sizeof *g);
      if (!g) {
        tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
        return -1;
      }
      m->ents = g;
      m->cap = cap;
    }
    memmove(m->ents + at + 1, m->ents + at, (m->n - at) * sizeof *m->ents);
    m->ents[at] = (m_entry){key, klen, e, id, NULL, 0};
    m->n++;
  }
  return 0;
}

static int write_index(const merge_state *m, const char *dest,
                       tfs_status *st) {
  char *path = tfs_bundle__index_name(dest);
  FILE *f = path ? fopen(path, "wb") : NULL;
  if (!f) {
    if (path)
      tfs_status_setf(st, errno == ENOENT ? TFS_NOT_FOUND
                                          : TFS_PERMISSION_DENIED,
                      "%s; %s", path, strerror(errno));
    else
      tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
    tfs_free(path);
    return -1;
  }
  tfs_sst_builder *b = tfs_sst_builder_new(f, TFS_SST_BLOCK_SIZE);
  tfs_buffer buf = {0};
  int rc = b ? tfs_bundle__pack_header(m->nshards, &buf, st) : -1;
  if (!rc) rc = tfs_sst_builder_add(b, "", 0, buf.data, buf.length);
  for (size_t i = 0; !rc && i < m->n; i++) {
    if (buf.data_deallocator)
      buf.data_deallocator((void *)buf.data, buf.length);
    memset(&buf, 0, sizeof buf);
    Tensorflow__BundleEntryProto e = *m->ents[i].e;
    if (!e.n_slices) e.shard_id = m->ents[i].shard;
    if (m->ents[i].slices) {
      e.slices = m->ents[i].slices;
      e.n_slices = m->ents[i].nslices;
    }
    rc = tfs_pb__pack(&e.base, &buf, st);
    if (!rc)
      rc = tfs_sst_builder_add(b, m->ents[i].key, m->ents[i].klen, buf.data,
                               buf.length);
  }
  if (buf.data_deallocator) buf.data_deallocator((void *)buf.data, buf.length);
  if (!rc) rc = tfs_sst_builder_finish(b);
  tfs_sst_builder_free(b);
  if (fclose(f) != 0) rc = -1;
  if (rc && tfs_status_ok(st))
    tfs_status_setf(st, TFS_INTERNAL, "%s: write failed", path);
  tfs_free(path);
  return rc;
}

/* Renames the inputs' data files to the destination's numbering. */
static int rename_shards(const merge_state *m, const char *dest,
                         tfs_status *st) {
  for (int i = 0; i < m->nshards; i++) {
    char *to = tfs_bundle__data_name(dest, i, m->nshards);
    if (!to) {
      tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
      return -1;
    }
    if (rename(m->shard_files[i], to) != 0) {
      tfs_status_setf(st, errno == ENOENT ? TFS_NOT_FOUND : TFS_UNKNOWN,
                      "%s; %s", m->shard_files[i], strerror(errno));
      tfs_free(to);
      return -1;
    }
    tfs_free(to);
  }
  return 0;
}

static int exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

static int merge_inputs(merge_state *m, const char *const *prefixes, int n,
                        int allow_missing, tfs_status *st) {
  for (int i = 0; i < n; i++) {
    char *index = tfs_bundle__index_name(prefixes[i]);
    if (!index) {
      tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
      return -1;
    }
    int there = exists(index);
    tfs_free(index);
    if (!there && allow_missing) continue;
    if (!there) {
      if (exists(prefixes[i]))
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "allow_missing_files was set to false and %s did not "
                        "exist.OK", prefixes[i]);
      else
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "allow_missing_files was set to false and %s did not "
                        "exist.NOT_FOUND: %s not found", prefixes[i],
                        prefixes[i]);
      return -1;
    }
    tfs_bundle_reader *r = tfs_bundle_reader_open(prefixes[i], st);
    if (!r) return -1;
    m->readers[m->nreaders++] = r;
    if (merge_one(m, r, prefixes[i], st)) return -1;
  }
  if (m->nreaders == 0) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "At least one prefix checkpoint file must exist, but none "
                   "existed.");
    return -1;
  }
  return 0;
}

void tfs_bundle_merge(const char *const *prefixes, int n, const char *dest,
                      int allow_missing, tfs_status *st) {
  merge_state m;
  memset(&m, 0, sizeof m);
  tfs_status_clear(st);
  m.readers = tfs_calloc(n > 0 ? (size_t)n : 1, sizeof *m.readers);
  if (!m.readers) {
    tfs_status_set(st, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  if (!tfs_bundle__make_parent_dir(dest, st) &&
      !merge_inputs(&m, prefixes, n, allow_missing, st) &&
      !rename_shards(&m, dest, st) && !write_index(&m, dest, st)) {
    for (int i = 0; i < n; i++) {
      char *index = tfs_bundle__index_name(prefixes[i]);
      if (index) unlink(index);
      tfs_free(index);
    }
  }
  for (size_t i = 0; i < m.n; i++) tfs_free(m.ents[i].slices);
  for (int i = 0; i < m.nshards; i++) tfs_free(m.shard_files[i]);
  for (int i = 0; i < m.nreaders; i++) tfs_bundle_reader_free(m.readers[i]);
  tfs_free(m.shard_files);
  tfs_free(m.ents);
  tfs_free(m.readers);
}
