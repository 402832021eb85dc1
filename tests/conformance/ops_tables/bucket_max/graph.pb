
,
xPlaceholder*
dtype0*
shape:
<
fastStringToHashBucketFastx*
num_buckets
ÿÿÿÿÿÿÿÿ
:
legacyStringToHashBucketx*
num_buckets
ÿÿÿÿÿÿÿÿ
O
strongStringToHashBucketStrongx*
key
*
num_buckets
ÿÿÿÿÿÿÿÿ
a
strong2StringToHashBucketStrongx*
key
ùÿÿÿÿÿÿÿÿ…€€€€€€€@*
num_buckets
ÿÿÿÿÿÿÿÿ"ª