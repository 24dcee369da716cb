# Idle seconds by cause, stacked, one bar per row of the data file: a run
# (causes.dat) or the points of a sweep (sweep_causes.dat, same columns:
# label then one column per cause in GS_CAUSE_TABLE order).
# Variable: causesfile (default datadir/causes.dat).
load plotsdir.'/common.gp'
if (exists("datadir") && !exists("causesfile")) load datadir.'/meta.gp'
if (!exists("causesfile")) causesfile = datadir.'/causes.dat'
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 border lc rgb '#ffffff'
set boxwidth 0.6
set ylabel "GPU idle (s)"
set title "GPU idle time by cause" noenhanced
set key outside right
set xtics rotate by -30 noenhanced
set yrange [0:*]
set terminal @PNGTERM size 1000,560
set output outbase.'.png'
plot for [i=2:32] causesfile using i:xtic(1) title (cause_present[i-1] ? cause_label[i-1] : '') lc rgb cause_rgb[i-1]
set terminal @SVGTERM size 1000,560
set output outbase.'.svg'
replot
set output
