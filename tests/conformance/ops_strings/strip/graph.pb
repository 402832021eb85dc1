
,
xPlaceholder*
dtype0*
shape:

StringStripStringStripx
%
outIdentityStringStrip*
T0"ª