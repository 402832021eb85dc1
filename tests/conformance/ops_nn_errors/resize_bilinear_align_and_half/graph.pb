
,
xPlaceholder*
dtype0*
shape:
,
sPlaceholder*
dtype0*
shape:
S
outResizeBilinearxs*
T0*
align_corners(*
half_pixel_centers("ª