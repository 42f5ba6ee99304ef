# Session 8, call 1: diagnose's first H200 run (bench/jobs/diagnose.sh), the C++ torch ops' tests
# again after the exports test's fix, and where k5's epilogue time goes (s7_python_rerun.sh).
source bench/jobs/diagnose.sh
source bench/jobs/s7_python_rerun.sh
