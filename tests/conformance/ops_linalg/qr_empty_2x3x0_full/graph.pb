
,
aPlaceholder*
dtype0*
shape:
)
QrQra*
T0*
full_matrices(

outIdentityQr*
T0
 
out_1IdentityQr:1*
T0"ª