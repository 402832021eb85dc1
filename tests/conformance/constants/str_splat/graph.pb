
6
cConst*
dtype0*
valueBBsame"ª