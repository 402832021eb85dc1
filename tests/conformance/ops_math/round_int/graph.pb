
6
i32/xPlaceholder*
dtype0*
shape
:
 
i32/outRoundi32/x*
T0
6
i64/xPlaceholder*
dtype0	*
shape
:
 
i64/outRoundi64/x*
T0	"ª