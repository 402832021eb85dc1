
,
xPlaceholder*
dtype0	*
shape:
=
BiasAddGradBiasAddGradx*
T0	*
data_formatNCHW
%
outIdentityBiasAddGrad*
T0	"ª