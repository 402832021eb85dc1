
,
xPlaceholder*
dtype0*
shape:
3
StringUpperStringUpperx*
encodinglatin1
%
outIdentityStringUpper*
T0"ª