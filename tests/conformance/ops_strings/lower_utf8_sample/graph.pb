
,
xPlaceholder*
dtype0*
shape:
2
StringLowerStringLowerx*
encodingutf-8
%
outIdentityStringLower*
T0"ª