
,
xPlaceholder*
dtype0*
shape:
5
EnsureShapeEnsureShapex*
T0*
shape:
%
outIdentityEnsureShape*
T0"ª