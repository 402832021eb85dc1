
,
xPlaceholder*
dtype0*
shape:
D
EnsureShapeEnsureShapex*
T0*
shape:ÿÿÿÿÿÿÿÿÿ
%
outIdentityEnsureShape*
T0"ª