# best-so-far kernel time; render with: gnuplot results/gpu/NVIDIA_H200/compare/random-s3/plot.gp
set terminal svg size 1100,450 dynamic font 'sans,11'
set output "results/gpu/NVIDIA_H200/compare/random-s3/plot.svg"
set datafile separator ','
set key bottom right
set grid
set multiplot layout 1,2 title "artificial: random, seed 3"
set xlabel 'evaluations'
set ylabel 'best kernel time (us)'
plot "results/gpu/NVIDIA_H200/compare/random-s3/history.csv" using 1:5 with steps lw 2 title "random"
set xlabel 'seconds'
plot "results/gpu/NVIDIA_H200/compare/random-s3/history.csv" using 3:5 with steps lw 2 title "random"
unset multiplot
