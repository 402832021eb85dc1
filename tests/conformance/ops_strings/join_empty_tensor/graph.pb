
,
aPlaceholder*
dtype0*
shape:
,
bPlaceholder*
dtype0*
shape:
9

StringJoin
StringJoinab*
N*
	separator+
$
outIdentity
StringJoin*
T0"ª