
,
xPlaceholder*
dtype0*
shape:
Ž
ExtractImagePatchesExtractImagePatchesx*
T0*
ksizes
*
paddingSAME*
rates
*
strides
ÿÿÿÿÿÿÿÿÿ
-
outIdentityExtractImagePatches*
T0"ª