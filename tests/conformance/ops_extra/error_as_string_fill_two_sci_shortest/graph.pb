
,
xPlaceholder*
dtype0*
shape:
€
AsStringAsStringx*
T0*
fillab*
	precisionÿÿÿÿÿÿÿÿÿ*

scientific(*
shortest(*
widthÿÿÿÿÿÿÿÿÿ
"
outIdentityAsString*
T0"ª