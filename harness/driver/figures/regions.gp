# regions.gp — allocation calls (left) and frees (right) per allocator, stacked
# by region: sequential, parallel, transactional.
# datafile: a comment line, then allocator, allocs seq/par/tx, frees seq/par/tx,
# and the lowest and highest run's total of allocations, then of frees (a
# whisker over each stack: the spread of the runs).
# Variables: datafile, out, stamp, figtitle, ylab, ymax (both panels), rows, rotate, lead, width.
load 'common.gp'
set style data histogram
set style histogram rowstacked gap 1
set style fill solid 0.85 border rgb '#444444'
set boxwidth 0.7
set yrange [0:ymax]
set xrange [-0.6:rows-0.4]
set xtics scale 0
set ylabel ylab
set key below horizontal center
# A rotated first label hangs left of the axis by about 0.85 of its length (in characters).
if (rotate) { set xtics rotate by 30 right; if (0.85 * lead > 10) { set lmargin 0.85 * lead } }

do for [fmt in formats] {
  eval terminal(fmt)
  set output out.".".fmt
  set multiplot layout 1,2 title "\n".figtitle  # the first line is the stamp's
  set title "allocations"
  plot datafile using 2:xtic(1) title "seq" lt 1, '' using 3 title "par" lt 2, '' using 4 title "tx" lt 3, \
       '' using ($0):($2+$3+$4):8:9 with yerrorbars lt -1 pt 0 notitle
  set title "frees"
  unset label 1001  # the stamp once, not per panel
  plot datafile using 5:xtic(1) title "seq" lt 1, '' using 6 title "par" lt 2, '' using 7 title "tx" lt 3, \
       '' using ($0):($5+$6+$7):10:11 with yerrorbars lt -1 pt 0 notitle
  eval stamp_label
  unset multiplot
  unset output
}
