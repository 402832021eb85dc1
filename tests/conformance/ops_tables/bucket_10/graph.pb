
,
xPlaceholder*
dtype0*
shape:
4
fastStringToHashBucketFastx*
num_buckets

2
legacyStringToHashBucketx*
num_buckets

G
strongStringToHashBucketStrongx*
key
*
num_buckets

Y
strong2StringToHashBucketStrongx*
key
ùÿÿÿÿÿÿÿÿ…€€€€€€€@*
num_buckets
"ª