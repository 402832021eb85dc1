
,
xPlaceholder*
dtype0*
shape:
v
outExtractImagePatchesx*
T0*
ksizes
*
paddingSAME*
rates	
*
strides
"ª