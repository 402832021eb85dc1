
2
cConst*
dtype0*
valueB:ÿÿ"ª