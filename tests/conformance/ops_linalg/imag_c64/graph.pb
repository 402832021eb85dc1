
,
aPlaceholder*
dtype0*
shape:
$
ImagImaga*

Tout0*
T0

outIdentityImag*
T0"ª