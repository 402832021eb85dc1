/*
 * backends/cpu/string_hash.h - the string hashes TensorFlow's hashing ops
 * use, bit for bit: FarmHash's Fingerprint64 (StringToHashBucketFast),
 * SipHash-2-4 (StringToHashBucketStrong) and TensorFlow's own Hash64, a
 * MurmurHash64A with seed 0xDECAFCAFFE (StringToHashBucket).
 */
#ifndef TFS_BACKENDS_CPU_STRING_HASH_H
#define TFS_BACKENDS_CPU_STRING_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FarmHash Fingerprint64 (farmhashna::Hash64) of s[0..len). */
uint64_t tfs_farmhash_fingerprint64(const char *s, size_t len);

/* SipHash-2-4 of s[0..len) under the key (k0, k1). */
uint64_t tfs_siphash24(uint64_t k0, uint64_t k1, const char *s, size_t len);

/* TensorFlow's Hash64(s, len, seed); its default seed is 0xDECAFCAFFE. */
uint64_t tfs_tf_hash64(const char *s, size_t len, uint64_t seed);

#endif
