
,
xPlaceholder*
dtype0*
shape:
/
StringLengthStringLengthx*
unitBYTE
&
outIdentityStringLength*
T0"ª