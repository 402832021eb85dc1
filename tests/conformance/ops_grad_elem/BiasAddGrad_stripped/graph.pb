

xPlaceholder*
dtype0
&
BiasAddGradBiasAddGradx*
T0
%
outIdentityBiasAddGrad*
T0"ª