
,
xPlaceholder*
dtype0*
shape:
4
StringLengthStringLengthx*
unit	UTF8_CHAR
&
outIdentityStringLength*
T0"ª