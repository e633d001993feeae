# best-so-far kernel time; render with: gnuplot /work/main/results/pwcet/run/plot.gp
set terminal svg size 1100,450 dynamic font 'sans,11' background rgb 'white'
set termoption noenhanced
set output "/work/main/results/pwcet/run/plot.svg"
set datafile separator ','
set key bottom right
set grid
set multiplot layout 1,2 title "artificial: gdivan, seed 1"
set xlabel 'evaluations'
set ylabel 'best kernel time (cycles)'
plot "/work/main/results/pwcet/run/history.csv" using 1:5 with steps lw 2 title "gdivan"
set xlabel 'seconds'
plot "/work/main/results/pwcet/run/history.csv" using 3:5 with steps lw 2 title "gdivan"
unset multiplot
