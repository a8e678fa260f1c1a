# micro.gp — the micro-benchmarks (micro.cpp). With chart = "bars" (the
# other benchmarks against the reference): bars.gp's points with intervals.
# Otherwise time per operation against block size (both axes logarithmic):
# one line per allocator with its 95% interval; datafile columns: size, then
# value, low, high per allocator.
# Variables: datafile, out, stamp, figtitle, n; chart; and bars.gp's with chart = "bars".
# (An old-style one-line if: a bracketed block cannot load common.gp, whose own ifs are old-style.)
if (exists("chart") && chart eq "bars") load 'bars.gp'; exit
load 'common.gp'
eval title_label
set xlabel "block size (bytes)"
set ylabel "ns per malloc + free"
set logscale x 2
set logscale y
set format x "%.0b%BB"

do for [fmt in formats] {
  eval terminal(fmt)
  set output out.".".fmt
  plot for [i=0:n-1] datafile using 1:(column(2+3*i)):(column(3+3*i)):(column(4+3*i)) \
         with yerrorlines title columnheader(2+3*i) lt i+1
  unset output
}
