
,
xPlaceholder*
dtype0*
shape:
2
StringUpperStringUpperx*
encodingutf-8
%
outIdentityStringUpper*
T0"ª