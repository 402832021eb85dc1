
,
pPlaceholder*
dtype0*
shape:
,
tPlaceholder*
dtype0*
shape:
,
kPlaceholder*
dtype0*
shape:
&
InTopKV2InTopKV2ptk*
T0
"
outIdentityInTopKV2*
T0
"ª