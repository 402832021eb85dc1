
,
xPlaceholder*
dtype0*
shape:
›
MaxPoolWithArgmaxMaxPoolWithArgmaxx*
Targmax0	*
T0*
include_batch_in_index(*
ksize
*
paddingVALID*
strides

+
outIdentityMaxPoolWithArgmax*
T0
/
out_1IdentityMaxPoolWithArgmax:1*
T0	"ª