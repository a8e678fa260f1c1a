# time.gp — time relative to the reference (time.cpp), as a grid of ratios: one row per workload, one column per
# allocator, each cell coloured by the ratio's log (blue below 1, red above,
# white at 1; clamped at 1/4 and 4) with its value printed, and '*' after it
# where the 95% interval leaves 1 out. Readable at 40+ rows, unlike bars.
# Variables: datafile (lines "x y log2ratio label"), out, stamp, figtitle,
# xticsdef, yticsdef (gnuplot tic lists), cols, rows, cblab, width, height.
load 'common.gp'
eval title_label
unset grid
set border 0
set tics scale 0
set xrange [-0.5:cols-0.5]
set yrange [-0.5:rows-0.5]
eval "set xtics (".xticsdef.")"
eval "set ytics (".yticsdef.")"

set xtics rotate by 30 right
set palette defined (-2 '#2166ac', -1 '#67a9cf', 0 '#f7f7f7', 1 '#ef8a62', 2 '#b2182b')
set cbrange [-2:2]
set cbtics ("1/4" -2, "1/2" -1, "1" 0, "2" 1, "4" 2)
set cblabel cblab
set style fill solid 1.0 noborder
unset key
do for [fmt in formats] {
  eval terminal(fmt)
  set output out.".".fmt
  plot datafile using 1:2:(0.5):(0.5):($3 < -2 ? -2 : $3 > 2 ? 2 : $3) with boxxyerror fillcolor palette, \
       '' using 1:2:4 with labels font ',9' textcolor rgb '#222222'
  unset output
}
