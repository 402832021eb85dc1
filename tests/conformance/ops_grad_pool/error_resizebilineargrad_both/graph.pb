
,
gPlaceholder*
dtype0*
shape:
-
imPlaceholder*
dtype0*
shape:
g
ResizeBilinearGradResizeBilinearGradgim*
T0*
align_corners(*
half_pixel_centers(
,
outIdentityResizeBilinearGrad*
T0"ª