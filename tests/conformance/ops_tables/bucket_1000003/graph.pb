
,
xPlaceholder*
dtype0*
shape:
6
fastStringToHashBucketFastx*
num_bucketsÃ„=
4
legacyStringToHashBucketx*
num_bucketsÃ„=
I
strongStringToHashBucketStrongx*
key
*
num_bucketsÃ„=
[
strong2StringToHashBucketStrongx*
key
ùÿÿÿÿÿÿÿÿ…€€€€€€€@*
num_bucketsÃ„="ª