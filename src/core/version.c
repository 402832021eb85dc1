/*
 * core/version.c - the library version.
 */
#include "tfsess/common.h"

const char *tfs_version(void) { return TFS_VERSION_STRING; }
