
,
xPlaceholder*
dtype0*
shape:
0

ComplexAbs
ComplexAbsx*

Tout0*
T0
$
outIdentity
ComplexAbs*
T0"ª