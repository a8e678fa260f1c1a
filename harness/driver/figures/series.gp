# series.gp — memory over time, one colour per allocator: RSS (its linetype:
# solid for the first eight) and the live requested heap (its second linetype:
# steps in the lighter shade of that colour, long dashes that stay dashes where
# points are dense: each point is the maximum since the previous one, so it
# holds over the interval before it).
# datafile: one block per allocator (blank lines between), columns seconds,
# heap MiB, RSS MiB. Variables: datafile, out, stamp, figtitle, names, n.
load 'common.gp'
eval title_label
set xlabel "time since the process started (s)"
set ylabel "MiB"
set yrange [0:*]
set datafile missing "NaN"

do for [fmt in formats] {
  eval terminal(fmt)
  set output out.".".fmt
  plot for [i=0:n-1] datafile index i using 1:3 with lines lt i+1 title word(names, i+1)." RSS", \
       for [i=0:n-1] datafile index i using 1:2 with fsteps lt i+101 title word(names, i+1)." heap"
  unset output
}
