# ladder.gp — time per operation against block size (both axes logarithmic):
# one line per allocator with its 95% interval.
# datafile columns: size, then value, low, high per allocator.
# Variables: datafile, out, stamp, figtitle, n.
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
