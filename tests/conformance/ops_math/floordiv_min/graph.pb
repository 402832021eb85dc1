
2
i64/xPlaceholder*
dtype0	*
shape:
2
i64/yPlaceholder*
dtype0	*
shape:
*
i64/outFloorDivi64/xi64/y*
T0	"ª