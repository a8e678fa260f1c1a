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

# Colour-blind-safe colours (Okabe-Ito), in the folder's allocator order.
set linetype 1 lc rgb '#0072B2' lw 2 pt 7
set linetype 2 lc rgb '#E69F00' lw 2 pt 5
set linetype 3 lc rgb '#009E73' lw 2 pt 9
set linetype 4 lc rgb '#CC79A7' lw 2 pt 11
set linetype 5 lc rgb '#56B4E9' lw 2 pt 13
set linetype 6 lc rgb '#D55E00' lw 2 pt 3
set linetype 7 lc rgb '#F0E442' lw 2 pt 4
set linetype 8 lc rgb '#000000' lw 2 pt 6
# The same colours, lighter, for a second series of each allocator (its heap
# beside its RSS in memory over time): told apart by colour and by dash.
set linetype 11 lc rgb '#7FB8D8' lw 2 pt 7
set linetype 12 lc rgb '#F2CF7F' lw 2 pt 5
set linetype 13 lc rgb '#7FCEB9' lw 2 pt 9
set linetype 14 lc rgb '#E5BCD3' lw 2 pt 11
set linetype 15 lc rgb '#AAD9F4' lw 2 pt 13
set linetype 16 lc rgb '#EAAE7F' lw 2 pt 3
set linetype 17 lc rgb '#F7F1A0' lw 2 pt 4
set linetype 18 lc rgb '#7F7F7F' lw 2 pt 6
set linetype cycle 8

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
