
,
xPlaceholder*
dtype0*
shape:
,
bPlaceholder*
dtype0*
shape:
8
BiasAddBiasAddxb*
T0*
data_formatNHWC
!
outIdentityBiasAdd*
T0"ª