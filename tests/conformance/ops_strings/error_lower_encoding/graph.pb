
,
xPlaceholder*
dtype0*
shape:
2
StringLowerStringLowerx*
encodingUTF-8
%
outIdentityStringLower*
T0"ª