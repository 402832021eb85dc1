
,
aPlaceholder*
dtype0*
shape:
,
bPlaceholder*
dtype0*
shape:
-
ComplexComplexab*

Tout0*
T0
!
outIdentityComplex*
T0"ª