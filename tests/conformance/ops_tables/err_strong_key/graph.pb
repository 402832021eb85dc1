
,
xPlaceholder*
dtype0*
shape:
E
outStringToHashBucketStrongx*
key
*
num_buckets"ª