
6
cConst*
dtype0*
valueBj€x€€ÿ÷"ª