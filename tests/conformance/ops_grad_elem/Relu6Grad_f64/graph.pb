
,
gPlaceholder*
dtype0*
shape:
,
fPlaceholder*
dtype0*
shape:
%
	Relu6Grad	Relu6Gradgf*
T0
#
outIdentity	Relu6Grad*
T0"ª