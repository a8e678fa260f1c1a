# bars.gp — clustered bars: one cluster per row of datafile (its first column
# labels it), one bar per series; with errorbars = 1 each series is three
# columns (value, low, high). NaN leaves a bar out. Not a kind's own script:
# aborts.gp, ladder.gp, mechanisms.gp, elements.gp and micro.gp load it. Ratios (errorbars with a
# refline at 1) are drawn as points with their intervals on a log scale
# instead, where 1/2 and 2 lie equally far from 1, and a bar's length would
# mean nothing.
# Variables: datafile, out, stamp, figtitle, ylab, n, rows, errorbars, refline, rotate, lead, width,
# zerolabels (write "0" over a bar that is exactly zero, so it is not read as missing).
load 'common.gp'
eval title_label
set ylabel ylab
set style data histogram
if (errorbars) { set style histogram errorbars gap 2 lw 1 } else { set style histogram clustered gap 2 }
set style fill solid 0.85 border rgb '#444444'
set boxwidth 0.9
set yrange [0:*]
set xrange [-0.6:rows-0.4]  # clusters sit at 0, 1, ...: no empty slot at either end
set xtics scale 0
# A rotated first label hangs left of the axis by about 0.85 of its length (in characters).
if (rotate) { set xtics rotate by 30 right; if (0.85 * lead > 10) { set lmargin 0.85 * lead } }
if (refline == refline) { set arrow 1 from graph 0, first refline to graph 1, first refline nohead dt 2 lw 1 lc rgb '#333333' front }

ratios = errorbars && refline == 1
# Past the eighth series the colours come round again (common.gp): bars are
# then hatched in their colour, one hatch for each round, points take the
# round's shape (series_point). Both follow the series' slot, as its colour
# does: an allocator keeps its look whatever is left out before it. One
# plot clause a bar, each written out: an empty loop clause would still take
# a slot in every cluster (bars off centre, zero labels beside them).
hatch(s) = 4 + (s/8 - 1) % 4
value_column = errorbars ? "2+3*i" : "2+i"
bars = ""
do for [i=0:n-1] {
  columns = errorbars ? sprintf("(column(%d)):(column(%d)):(column(%d)):xtic(1) title columnheader(%d)", 2+3*i, 3+3*i, 4+3*i, 2+3*i) \
                      : sprintf("(column(%d)):xtic(1) title columnheader(%d)", 2+i, 2+i)
  fill = slot(i) < 8 ? "" : sprintf(" fs pattern %d border rgb '#444444'", hatch(slot(i)))
  bars = bars . (i > 0 ? ", " : "") . "datafile using " . columns . sprintf(" lt %d", i+1) . fill
}
if (ratios) {
  set logscale y 2
  set autoscale y
  set key autotitle columnhead
  set offsets 0, 0, graph 0.08, graph 0.08
  set grid ytics
}

do for [fmt in formats] {
  eval terminal(fmt)
  set output out.".".fmt
  if (ratios) {
    # Series i of row r sits at r + (i - (n-1)/2) / (n + 2); a point without a
    # whisker is a value without an interval (the reference, at 1).
    plot datafile using 0:(NaN):xtic(1) with points notitle, \
         for [i=0:n-1] datafile using ($0 + (i - (n-1)/2.0) / (n + 2)):(column(2+3*i)):(column(3+3*i)):(column(4+3*i)) \
           with yerrorbars title columnheader(2+3*i) lt i+1 pt series_point(slot(i)) ps 1.2
  } else { if (exists("zerolabels") && zerolabels) {
    # Bar i of cluster r sits at r + (i - (n-1)/2) / (n + gap), gap 2; this plot counts the
    # header line as record 0, so cluster r is record r + 1.
    plot @bars, \
         for [i=0:n-1] datafile using ($0 - 1 + (i - (n-1)/2.0) / (n + 2)):(column(@value_column) == 0 ? 0 : NaN):("0") \
           with labels offset 0,0.6 font ',8' textcolor rgb '#444444' notitle
  } else {
    plot @bars
  } }
  unset output
}
