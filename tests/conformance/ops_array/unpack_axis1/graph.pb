
8
in0Placeholder*
dtype0*
shape:
2
outUnpackin0*

axis*
T0*	
num"ª