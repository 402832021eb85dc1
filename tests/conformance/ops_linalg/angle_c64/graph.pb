
,
aPlaceholder*
dtype0*
shape:
&
AngleAnglea*

Tout0*
T0

outIdentityAngle*
T0"ª