
,
aPlaceholder*
dtype0*
shape:
$
RealReala*

Tout0*
T0

outIdentityReal*
T0"ª