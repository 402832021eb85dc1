
0
cConst*
valueB	*
dtype0	"ª