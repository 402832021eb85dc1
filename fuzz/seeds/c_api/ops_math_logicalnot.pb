
.
xPlaceholder*
dtype0
*
shape:

out
LogicalNotx"ª