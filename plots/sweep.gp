# Sweep chart: GPU idle fraction versus each suspect's injected delay.
# sweepfile (default datadir/../sweep.dat): one index block per suspect,
# each preceded by "# suspect <name>", columns
#   delay_ms idle_frac idle_frac_lo idle_frac_hi idle_s n
# (idle_frac = 1 - util; lo/hi: the interval the sweep reports, e.g. a 95%
# confidence interval or min/max over repetitions).  suspects: the block
# names in order, space separated (gs_sweep_chart reads them from the file).
load plotsdir.'/common.gp'
if (!exists("sweepfile")) sweepfile = datadir.'/sweep.dat'
if (!exists("suspects")) suspects = "suspect"
set xlabel "injected delay per occurrence (ms)"
set ylabel "GPU idle fraction (1 - util)"
set yrange [0:*]
set title "GPU idle versus injected delay, per suspect" noenhanced
set key top left noenhanced
set terminal @PNGTERM size 900,560
set output outbase.'.png'
plot for [i=1:words(suspects)] sweepfile index (i-1) using 1:2:3:4 with yerrorlines lw 2 pt 7 title word(suspects, i)
set terminal @SVGTERM size 900,560
set output outbase.'.svg'
replot
set output
