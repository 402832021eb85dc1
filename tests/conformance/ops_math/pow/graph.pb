
5
i8/xPlaceholder*
dtype0*
shape
:
1
i8/yPlaceholder*
dtype0*
shape:
"
i8/outPowi8/xi8/y*
T0
6
i16/xPlaceholder*
dtype0*
shape
:
2
i16/yPlaceholder*
dtype0*
shape:
%
i16/outPowi16/xi16/y*
T0
6
i32/xPlaceholder*
dtype0*
shape
:
2
i32/yPlaceholder*
dtype0*
shape:
%
i32/outPowi32/xi32/y*
T0
6
i64/xPlaceholder*
dtype0	*
shape
:
2
i64/yPlaceholder*
dtype0	*
shape:
%
i64/outPowi64/xi64/y*
T0	"ª