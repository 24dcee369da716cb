# Sweep chart: GPU idle versus each suspect's injected delay.
# sweepfile (default datadir/sweep.dat): one index block per suspect, each
# preceded by "# suspect <name>" (report/README.md, "sweep.dat"), columns
#   x idle_mean_s idle_lo_s idle_hi_s util_mean n "label"
# x = injected delay per occurrence in seconds (0 = off); lo/hi are drawn
# as interval bars.  suspects: the block names in order, space separated
# (gs_sweep_chart reads them from the file).
load plotsdir.'/common.gp'
if (!exists("sweepfile")) sweepfile = datadir.'/sweep.dat'
if (!exists("suspects")) suspects = "suspect"
set xlabel "injected delay per occurrence (ms)"
set ylabel "GPU idle (s, inside the device span)"
set yrange [0:*]
set title "GPU idle versus injected delay, per suspect (bars: interval over repetitions)" noenhanced
set key top left noenhanced
set terminal @PNGTERM size 900,560
set output outbase.'.png'
plot for [i=1:words(suspects)] sweepfile index (i-1) using ($1*1000):2:3:4 with yerrorlines lw 2 pt 7 title word(suspects, i)
set terminal @SVGTERM size 900,560
set output outbase.'.svg'
replot
set output
