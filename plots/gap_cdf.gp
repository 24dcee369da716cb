# Gap-length CDF per device (gap_cdf.dat: len_ms cdf, one index block per
# device), log x; the dashed line is the micro/macro threshold.
load plotsdir.'/common.gp'
load datadir.'/meta.gp'
set logscale x
set xlabel "idle gap length (ms)"
set ylabel "fraction of gaps <= length"
set yrange [0:1.02]
set title "Idle gap length CDF" noenhanced
set key bottom right
set arrow from micro_ms, graph 0 to micro_ms, graph 1 nohead dt 2 lc rgb '#888888'
set label sprintf("micro/macro %g ms", micro_ms) at micro_ms, graph 0.95 offset 0.5,0 font ",8"
set terminal @PNGTERM size 900,560
set output outbase.'.png'
plot for [i=0:n_devices-1] datadir.'/gap_cdf.dat' index i using 1:2 with steps lw 2 title "GPU ".word(device_ids, i+1)
set terminal @SVGTERM size 900,560
set output outbase.'.svg'
replot
set output
