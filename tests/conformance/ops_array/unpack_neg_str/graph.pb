
4
in0Placeholder*
dtype0*
shape
:
;
outUnpackin0*
axisÿÿÿÿÿÿÿÿÿ*
T0*	
num"ª