
,
xPlaceholder*
dtype0*
shape:
,
pPlaceholder*
dtype0	*
shape:
,
nPlaceholder*
dtype0	*
shape:
7
SubstrSubstrxpn*
T0	*
unit	UTF8_CHAR
 
outIdentitySubstr*
T0"ª