
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:

XdivyXdivyxy*
T0

outIdentityXdivy*
T0"ª