/*
 * optimizer/amp.h - auto mixed precision's op lists.
 */
#ifndef TFS_OPTIMIZER_AMP_H
#define TFS_OPTIMIZER_AMP_H

enum {
  TFS_AMP_UNLISTED = 0,
  TFS_AMP_ALLOW,
  TFS_AMP_INFER,
  TFS_AMP_DENY,
  TFS_AMP_CLEAR
};

/* Which list `op` is on. */
int tfs_amp__list_of(const char *op);

#endif
