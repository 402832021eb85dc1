
,
xPlaceholder*
dtype0*
shape:
 
SoftsignSoftsignx*
T0
"
outIdentitySoftsign*
T0"ª