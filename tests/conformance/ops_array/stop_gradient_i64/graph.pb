
0
in0Placeholder*
dtype0	*
shape:
!
outStopGradientin0*
T0	"ª