
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:

XlogyXlogyxy*
T0

outIdentityXlogy*
T0"ª