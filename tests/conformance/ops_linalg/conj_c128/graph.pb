
,
aPlaceholder*
dtype0*
shape:

ConjConja*
T0

outIdentityConj*
T0"ª