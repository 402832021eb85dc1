
/
seedPlaceholder*
dtype0	*
shape:
6
outStatelessRandomGetKeyCounterseed*
Tseed0	"ª