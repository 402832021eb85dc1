
2
xPlaceholder*
dtype0
*
shape
:
.
yPlaceholder*
dtype0
*
shape:

out
LogicalAndxy"ª