
,
xPlaceholder*
dtype0*
shape:
…
ExtractImagePatchesExtractImagePatchesx*
T0*
ksizes
*
paddingSAME*
rates
*
strides

-
outIdentityExtractImagePatches*
T0"ª