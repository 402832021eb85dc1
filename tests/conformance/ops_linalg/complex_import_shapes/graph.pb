
3
x0Placeholder*
dtype0*
shape
:
/
x1Placeholder*
dtype0*
shape:
/
ComplexComplexx0x1*

Tout0*
T0
!
outIdentityComplex*
T0"ª