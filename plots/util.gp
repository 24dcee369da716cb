# Utilization over time in bins (util_bins.dat: t_s util util_kernels_only,
# one index block per device; bin width in the file header, default 0.2 s).
load plotsdir.'/common.gp'
load datadir.'/meta.gp'
set xlabel "time since the first span (s)"
set ylabel "busy fraction of the bin"
set yrange [0:1.05]
set title "Device utilization over time (util = kernels-or-copies busy / bin; kernels only dashed)" noenhanced
set key outside below
set terminal @PNGTERM size 1200,500
set output outbase.'.png'
plot for [i=0:n_devices-1] datadir.'/util_bins.dat' index i using 1:2 with histeps lw 2 title "util, GPU ".word(device_ids, i+1), \
     for [i=0:n_devices-1] datadir.'/util_bins.dat' index i using 1:3 with histeps dt 2 title "util kernels only, GPU ".word(device_ids, i+1)
set terminal @SVGTERM size 1200,500
set output outbase.'.svg'
replot
set output
