
4
in0Placeholder*
dtype0*
shape
:
D
outPreventGradientin0*
T0*
messageno gradients here"ª