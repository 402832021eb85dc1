
5
cConst*
valueB‚ÿÿÿÿ	*
dtype0"ª