# common.gp — what every allocstamp figure shares: the terminals (PNG through
# cairo when this gnuplot has it, and SVG), colours, grid, and the machine and
# date stamp. `bench plot` sets out (path without extension) and stamp.
if (!exists("width")) width = 960
if (!exists("height")) height = 560
png_terminal = strstrt(GPVAL_TERMINALS, "pngcairo") > 0 ? \
  sprintf("set terminal pngcairo noenhanced size %d,%d font 'Sans,11'", width, height) : \
  sprintf("set terminal png noenhanced size %d,%d font 'Sans' 11", width, height)
svg_terminal = sprintf("set terminal svg noenhanced size %d,%d dynamic font 'Sans,11' background '#ffffff'", width, height)
terminal(fmt) = fmt eq "png" ? png_terminal : svg_terminal
formats = "png svg"

# Colour-blind-safe colours (Okabe-Ito), in the folder's allocator order:
# series i (from 0) is linetype i+1, in the colour of its slot (below). Past the eighth series the colours come
# round again with the next dash type (solid, dashed, dotted, dash-dot,
# dash-dot-dot) and, for points drawn alone, the next shape (series_point), so
# no two of 40 series share colour and dash; bars past the eighth are hatched
# (bars.gp). Linetype 101+i is series i's second line (its heap beside its RSS
# in memory over time): the same colour lighter, long dashes of its own.
colours = "#0072B2 #E69F00 #009E73 #CC79A7 #56B4E9 #D55E00 #F0E442 #000000"
lighter = "#7FB8D8 #F2CF7F #7FCEB9 #E5BCD3 #AAD9F4 #EAAE7F #F7F1A0 #7F7F7F"
points = "7 5 9 11 13 3 4 6"
second_dashes = "(12,6) (12,6,2,6) (12,6,2,6,2,6) (4,6) (24,6)"
# A figure whose series are allocators and leaves some out (no value at all)
# sets `slots`, each drawn series' place in the folder's allocator order, so
# that an allocator keeps its colour whatever is left out before it.
slot(i) = exists("slots") && i < words(slots) ? word(slots, i+1) + 0 : i
do for [i=0:39] {
  s = slot(i)
  eval sprintf("set linetype %d lc rgb '%s' lw 2 dt %d pt %s", i+1, word(colours, s%8+1), s/8+1, word(points, s%8+1))
  eval sprintf("set linetype %d lc rgb '%s' lw 2.5 dt %s pt %s", i+101, word(lighter, s%8+1), word(second_dashes, s/8+1), word(points, s%8+1))
}
set linetype cycle 40
series_point(i) = (i/8) % 5 == 0 ? 7 : (i/8) % 5 == 1 ? 5 : (i/8) % 5 == 2 ? 9 : (i/8) % 5 == 3 ? 11 : 13

set border 3
set tics nomirror
set grid ytics lc rgb '#dddddd' lw 1 dt 1
set key outside right top vertical Left reverse noautotitle
# The stamp gets a line of its own at the top: the bottom holds the x labels
# (rotated when long), the right the legend, and the title may be wide.
set tmargin 4
stamp_label = "set label 1001 stamp at screen 0.995, 0.975 right font ',8' textcolor rgb '#777777'"
eval stamp_label
# The title (each script evals title_label once figtitle is set),
# centred on the picture rather than on the plot, which the axis labels and
# the legend push aside: bench plot makes the picture wide enough for it.
title_label = "set label 1002 figtitle at screen 0.5, graph 1 offset 0, 1.6 center front"
