
5
i8/xPlaceholder*
dtype0*
shape
:
5
i8/yPlaceholder*
dtype0*
shape
:
*
i8/outTruncateDivi8/xi8/y*
T0
6
i16/xPlaceholder*
dtype0*
shape
:
6
i16/yPlaceholder*
dtype0*
shape
:
-
i16/outTruncateDivi16/xi16/y*
T0
6
i32/xPlaceholder*
dtype0*
shape
:
6
i32/yPlaceholder*
dtype0*
shape
:
-
i32/outTruncateDivi32/xi32/y*
T0
6
i64/xPlaceholder*
dtype0	*
shape
:
6
i64/yPlaceholder*
dtype0	*
shape
:
-
i64/outTruncateDivi64/xi64/y*
T0	
6
f32/xPlaceholder*
dtype0*
shape
:
6
f32/yPlaceholder*
dtype0*
shape
:
-
f32/outTruncateDivf32/xf32/y*
T0
6
f64/xPlaceholder*
dtype0*
shape
:
6
f64/yPlaceholder*
dtype0*
shape
:
-
f64/outTruncateDivf64/xf64/y*
T0
6
f16/xPlaceholder*
dtype0*
shape
:
6
f16/yPlaceholder*
dtype0*
shape
:
-
f16/outTruncateDivf16/xf16/y*
T0"ª