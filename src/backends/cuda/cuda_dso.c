/*
 * backends/cuda/cuda_dso.c - opening the CUDA libraries the device loads on
 * first use (cuBLAS, cuDNN): an override from the environment, else the
 * directory the build found the library in, else the dynamic loader's
 * search path; errors in TensorFlow's wording.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "backends/cuda/cuda_device.h"

void *tfs_cuda__dso_open(const char *env, const char *dir,
                         const char *soname, char *err, size_t errlen) {
  const char *forced = env ? getenv(env) : NULL;
  const char *name = forced && *forced ? forced : soname;
  void *lib = NULL;
  if (name == soname) {
    /* the build's directory first (a toolkit outside the loader's path),
     * then the loader's search path */
    char path[1024];
    int n = snprintf(path, sizeof path, "%s/%s", dir, soname);
    if (n > 0 && (size_t)n < sizeof path)
      lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  }
  if (!lib) lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    snprintf(err, errlen, "Could not load dynamic library '%s'; dlerror: %s",
             name, why ? why : "unknown");
  }
  return lib;
}

int tfs_cuda__dso_sym(void *lib, const char *libname, const char *sym,
                      void **fn, char *err, size_t errlen) {
  *fn = dlsym(lib, sym);
  if (*fn) return 0;
  snprintf(err, errlen, "%s has no symbol %s", libname, sym);
  return -1;
}

int tfs_cuda__dso_loaded(const char *dir, const char *soname) {
  void *h = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
  char path[1024];
  int n = snprintf(path, sizeof path, "%s/%s", dir, soname);
  if (!h && n > 0 && (size_t)n < sizeof path)
    h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (!h) return 0;
  dlclose(h); /* drops the reference RTLD_NOLOAD took */
  return 1;
}
