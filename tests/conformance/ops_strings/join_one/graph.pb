
,
aPlaceholder*
dtype0*
shape:
6

StringJoin
StringJoina*
N*
	separator+
$
outIdentity
StringJoin*
T0"ª