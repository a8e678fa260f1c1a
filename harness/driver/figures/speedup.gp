# speedup.gp — speedup against thread count: one line per allocator with its
# 95% interval, and the dashed line of linear speedup from the base count.
# datafile columns: threads, then value, low, high per allocator.
# Variables: datafile, out, stamp, figtitle, n, base, ticks (the thread counts, comma-separated),
# ideal: "linear" (the threads share the work) or "flat" (every thread does the whole work).
load 'common.gp'
eval title_label
set xlabel "threads"
eval "set xtics (".ticks.")"
set ylabel sprintf("speedup: time at %d / time at N (higher is faster)", base)
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0

do for [fmt in formats] {
  eval terminal(fmt)
  set output out.".".fmt
  # Each allocator's points shift a little sideways so that the intervals do not hide each other.
  plot for [i=0:n-1] datafile using ($1 * (1 + 0.012 * (i - (n - 1) / 2.0))):(column(2+3*i)):(column(3+3*i)):(column(4+3*i)) \
         with yerrorlines title columnheader(2+3*i) lt i+1, \
       (ideal eq "flat" ? 1 : x / base) with lines dt 2 lw 1 lc rgb '#777777' \
         title (ideal eq "flat" ? "ideal (work per thread)" : "linear")
  unset output
}
