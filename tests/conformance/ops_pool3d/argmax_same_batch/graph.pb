
,
xPlaceholder*
dtype0*
shape:
š
MaxPoolWithArgmaxMaxPoolWithArgmaxx*
Targmax0	*
T0*
include_batch_in_index(*
ksize
*
paddingSAME*
strides

+
outIdentityMaxPoolWithArgmax*
T0
/
out_1IdentityMaxPoolWithArgmax:1*
T0	"ª