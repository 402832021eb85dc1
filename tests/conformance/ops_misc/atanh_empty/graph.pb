
,
xPlaceholder*
dtype0*
shape:

AtanhAtanhx*
T0

outIdentityAtanh*
T0"ª