
2
yPlaceholder*
dtype0*
shape
:
3
dyPlaceholder*
dtype0*
shape
:
0
ReciprocalGradReciprocalGradydy*
T0
(
outIdentityReciprocalGrad*
T0"ª