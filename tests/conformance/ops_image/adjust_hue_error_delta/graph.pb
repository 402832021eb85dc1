
,
xPlaceholder*
dtype0*
shape:
,
dPlaceholder*
dtype0*
shape:
%
	AdjustHue	AdjustHuexd*
T0
#
outIdentity	AdjustHue*
T0"ª