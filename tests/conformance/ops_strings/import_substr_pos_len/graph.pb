
,
xPlaceholder*
dtype0*
shape:
.
pPlaceholder*
dtype0*
shape:
.
nPlaceholder*
dtype0*
shape:
/
outSubstrxpn*
T0*
unitBYTE"ª