
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
,
gPlaceholder*
dtype0*
shape:
,
kPlaceholder*
dtype0*
shape:
,
sPlaceholder*
dtype0*
shape:
a
MaxPoolGradV2MaxPoolGradV2xygks*
T0*
data_formatNHWC*
paddingVALID
'
outIdentityMaxPoolGradV2*
T0"ª