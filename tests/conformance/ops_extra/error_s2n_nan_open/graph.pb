
,
sPlaceholder*
dtype0*
shape:
3
StringToNumberStringToNumbers*
out_type0
(
outIdentityStringToNumber*
T0"ª