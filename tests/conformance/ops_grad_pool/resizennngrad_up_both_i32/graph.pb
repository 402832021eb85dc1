
,
gPlaceholder*
dtype0*
shape:
,
sPlaceholder*
dtype0*
shape:
t
ResizeNearestNeighborGradResizeNearestNeighborGradgs*
T0*
align_corners(*
half_pixel_centers(
3
outIdentityResizeNearestNeighborGrad*
T0"ª