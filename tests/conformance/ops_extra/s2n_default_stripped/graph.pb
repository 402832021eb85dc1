

sPlaceholder*
dtype0
#
StringToNumberStringToNumbers
(
outIdentityStringToNumber*
T0"ª