
2
aPlaceholder*
dtype0*
shape
:
 
outAddNa*
N*
T0"ª