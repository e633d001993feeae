# exceedance probability per run; render with: gnuplot results/pwcet/campaign/pwcet-top-03.gp
set terminal svg size 900,560 dynamic font 'sans,11' background rgb 'white'
set termoption noenhanced
set output "/work/main/results/pwcet/campaign/pwcet-top-03.svg"
set logscale y
set format y '1e%L'
set yrange [1e-16:1]
set grid
set key top right
set xlabel 'kernel time (cycles)'
set ylabel 'exceedance probability per run'
set title "top/03: 1000 samples, i.i.d. checks passed"
plot "/work/main/results/pwcet/campaign/pwcet-top-03.dat" index 0 with steps lw 2 lc rgb 'black' title 'measured', \
     "/work/main/results/pwcet/campaign/pwcet-top-03.dat" index 1 with lines lw 2 lc rgb '#1b7e67' title 'gev-mle', \
     "/work/main/results/pwcet/campaign/pwcet-top-03.dat" index 2 with lines lw 2 lc rgb '#66c2a5' title 'gev-pwm', \
     "/work/main/results/pwcet/campaign/pwcet-top-03.dat" index 3 with lines lw 2 lc rgb '#b34a02' title 'gumbel-mle', \
     "/work/main/results/pwcet/campaign/pwcet-top-03.dat" index 4 with lines lw 2 lc rgb '#fc8d62' title 'gumbel-pwm', \
     "/work/main/results/pwcet/campaign/pwcet-top-03.dat" index 5 with lines lw 2 lc rgb '#4a4393' title 'gpd-mle', \
     "/work/main/results/pwcet/campaign/pwcet-top-03.dat" index 6 with lines lw 2 lc rgb '#8da0cb' title 'gpd-pwm', \
     "/work/main/results/pwcet/campaign/pwcet-top-03.dat" index 7 with lines lw 2 lc rgb '#e7298a' title 'exp-cv'
