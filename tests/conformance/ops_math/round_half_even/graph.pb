
2
f32/xPlaceholder*
dtype0*
shape:	
 
f32/outRoundf32/x*
T0
2
f64/xPlaceholder*
dtype0*
shape:	
 
f64/outRoundf64/x*
T0
2
f16/xPlaceholder*
dtype0*
shape:	
 
f16/outRoundf16/x*
T0"ª