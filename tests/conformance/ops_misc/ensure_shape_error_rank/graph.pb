
,
xPlaceholder*
dtype0*
shape:
7
EnsureShapeEnsureShapex*
T0*
shape:
%
outIdentityEnsureShape*
T0"ª