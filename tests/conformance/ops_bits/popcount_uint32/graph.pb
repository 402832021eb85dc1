
4
in0Placeholder*
dtype0*
shape
:
$
outPopulationCountin0*
T0"ª