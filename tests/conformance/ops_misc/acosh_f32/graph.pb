
,
xPlaceholder*
dtype0*
shape:

AcoshAcoshx*
T0

outIdentityAcosh*
T0"ª