# Shared settings of the gapscope chart templates.
# Variables set by the caller (gnuplot -e): plotsdir, datadir, outbase.
# Every template draws a PNG (pngcairo when available, else png) and then
# the same chart as SVG: outbase.'.png' and outbase.'.svg'.
if (!exists("plotsdir")) plotsdir = "plots"
if (!exists("datadir")) datadir = "data"
if (!exists("outbase")) outbase = "chart"
PNGTERM = (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) ? "pngcairo noenhanced font 'Sans,10'" : "png noenhanced"
SVGTERM = "svg noenhanced dynamic background rgb 'white'"

# Cause colours, in the order of GS_CAUSE_TABLE (diag/analysis.h):
# queue_empty, tracker_lock/malloc_trim, tracker_lock/verify,
# tracker_lock/injected, tracker_lock/other, device_mutex, host_prep,
# h2d_pageable, h2d_pinned, handoff, backend_host, finish_in_worker, other,
# then the launcher rule's causes (foreign timelines): lock_wait/malloc_trim,
# lock_wait/cuda_sync, lock_wait/host_compute, lock_wait/blocked,
# lock_wait/other, malloc_trim, cuda_sync, blocked_futex, io, sleep,
# cpu_starved, host_compute.
array cause_rgb[25] = [0x9c755f, 0xe15759, 0xf28e2b, 0xff9da7, 0xb07aa1, \
                       0x59a14f, 0xedc948, 0x4e79a7, 0x76b7b2, 0xbab0ac, 0x17becf, 0xbcbd22, \
                       0x7f7f7f, \
                       0xb2182b, 0xd6604d, 0xf4a582, 0x8c510a, 0xc51b7d, \
                       0x67001f, 0x1b9e77, 0x6b4c3b, 0x3b3b98, 0xc49c94, 0xe377c2, 0xd4a017]
array cause_label[25] = ["queue_empty", "tracker_lock/malloc_trim", "tracker_lock/verify", \
                         "tracker_lock/injected", "tracker_lock/other", "device_mutex", \
                         "host_prep", "h2d_pageable", "h2d_pinned", "handoff", \
                         "backend_host", "finish_in_worker", "other", \
                         "lock_wait/malloc_trim", "lock_wait/cuda_sync", "lock_wait/host_compute", \
                         "lock_wait/blocked", "lock_wait/other", "malloc_trim", "cuda_sync", \
                         "blocked_futex", "io", "sleep", "cpu_starved", "host_compute"]
cause_color(i) = cause_rgb[int(i) + 1]

# Span categories of timeline_spans.dat: kernel, copy, queue_wait,
# lock_wait, lock_hold, injected, prove/synth, other step.
array cat_rgb[8] = [0x2ca02c, 0x1f77b4, 0xc7c7c7, 0xd62728, 0xff7f0e, 0x9467bd, 0x8c564b, 0xaec7e8]
array cat_label[8] = ["kernel", "copy", "queue_wait", "lock wait", "lock hold", "injected", \
                      "prove/synth", "other step"]
cat_color(i) = cat_rgb[int(i) + 1]

# An RGB colour drawn with opacity a (0..1): gnuplot's ARGB, alpha 0 = opaque.
with_alpha(rgb, a) = (int((1 - a) * 255 + 0.5) << 24) | int(rgb)

set grid xtics ytics lc rgb '#dddddd'
set border lc rgb '#555555'
set key noenhanced

# Defaults when the data directory's meta.gp does not define them.
if (!exists("device_ids")) device_ids = "0"
array cause_present[25] = [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]
