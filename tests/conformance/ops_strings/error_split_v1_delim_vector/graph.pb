
,
xPlaceholder*
dtype0*
shape:
,
dPlaceholder*
dtype0*
shape:
2
StringSplitStringSplitxd*

skip_empty(
%
outIdentityStringSplit*
T0	
)
out_1IdentityStringSplit:1*
T0
)
out_2IdentityStringSplit:2*
T0	"ª