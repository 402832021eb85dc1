

xPlaceholder*
dtype0
 
AsStringAsStringx*
T0
"
outIdentityAsString*
T0"ª