# Timeline: one row per lane (device streams, tracker lock, GPU workers,
# finalizers, synthesis threads), spans coloured by category, idle gaps of
# each device shaded across the whole chart and coloured by cause.
# Data: lanes via meta.gp (ytics), timeline_spans.dat and timeline_gaps.dat
# (zoom: timeline_zoom_spans.dat, timeline_zoom_gaps.dat), each row drawn at
# the chart's pixel columns (plot_columns): a box with coverage < 1 stands
# for merged spans and is drawn that opaque (report/README.md).
# Variables: zoom (0 = whole run, 1 = window around the longest gap, from
# meta.gp zoom_lo/zoom_hi), or xlo/xhi to pick any window (drawn from the
# whole run's files: merged boxes stay as wide as a column of the run).
load plotsdir.'/common.gp'
load datadir.'/meta.gp'
load datadir.'/lanes.gp'
if (!exists("zoom")) zoom = 0
if (!exists("xlo")) xlo = (zoom ? zoom_lo : 0)
if (!exists("xhi")) xhi = (zoom ? zoom_hi : t_end)
if (xhi <= xlo) xhi = xlo + 1e-3
set xrange [xlo:xhi]
set yrange [-0.6:n_rows - 0.4]
set xlabel "time since the first span (s)"
set title (zoom ? "Timeline around the longest idle gap (gaps shaded by cause)" : "Timeline (idle gaps shaded by cause)") noenhanced
set key outside below horizontal maxcols 7 samplen 1.5
set ytics font ",8"
set grid noytics
set style fill solid 1.0 noborder
if (!exists("plot_columns")) plot_columns = 1400
h = n_rows / 2.0
H = (n_rows * 22 + 160 < 400) ? 400 : n_rows * 22 + 160
spans = datadir.(zoom ? '/timeline_zoom_spans.dat' : '/timeline_spans.dat')
gaps = datadir.(zoom ? '/timeline_zoom_gaps.dat' : '/timeline_gaps.dat')
set terminal @PNGTERM size plot_columns,H
set output outbase.'.png'
plot gaps using (($2+$3)/2):(h - 0.5):(($3-$2)/2):(h):(with_alpha(cause_color($4), 0.28 * $5)) \
         with boxxyerror fs solid noborder lc rgb variable notitle, \
     spans using (($2+$3)/2):1:(($3-$2)/2):5:(with_alpha(cat_color($4), $6)) \
         with boxxyerror lc rgb variable notitle, \
     for [i=1:8] NaN with boxes fs solid lc rgb cat_rgb[i] title cat_label[i], \
     for [i=1:25] NaN with boxes fs transparent solid 0.35 lc rgb cause_rgb[i] title (cause_present[i] ? 'gap: '.cause_label[i] : '')
set terminal @SVGTERM size plot_columns,H
set output outbase.'.svg'
replot
set output
