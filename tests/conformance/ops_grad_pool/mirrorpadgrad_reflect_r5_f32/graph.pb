
,
xPlaceholder*
dtype0*
shape:
,
pPlaceholder*
dtype0*
shape:
Q
MirrorPadGradMirrorPadGradxp*
	Tpaddings0*
T0*
mode	REFLECT
'
outIdentityMirrorPadGrad*
T0"ª