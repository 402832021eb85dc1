
2
xPlaceholder*
dtype0*
shape
:
,
sPlaceholder*
dtype0*
shape:
3
outStringSplitV2xs*
maxsplitÿÿÿÿÿÿÿÿÿ"ª