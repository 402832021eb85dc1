
,
aPlaceholder*
dtype0*
shape:
,
bPlaceholder*
dtype0*
shape:
,
cPlaceholder*
dtype0*
shape:
<

StringJoin
StringJoinabc*
N*
	separator-
$
outIdentity
StringJoin*
T0"ª