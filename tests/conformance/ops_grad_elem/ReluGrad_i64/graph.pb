
,
gPlaceholder*
dtype0	*
shape:
,
fPlaceholder*
dtype0	*
shape:
#
ReluGradReluGradgf*
T0	
"
outIdentityReluGrad*
T0	"ª