
,
xPlaceholder*
dtype0*
shape:
,
pPlaceholder*
dtype0*
shape:
S
MirrorPadGradMirrorPadGradxp*
	Tpaddings0*
T0*
mode	SYMMETRIC
'
outIdentityMirrorPadGrad*
T0"ª