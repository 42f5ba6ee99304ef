# Session 6, first call: the split-K changes made after session 5's run (reduction loop
# interchanged, launcher occupancy from resident_blocks) through their GPU tests and the decode
# suite, then the Python package's first GPU run (issue 15).
source bench/jobs/splitk.sh
pg fuzz --count 2000 --dtype f16,bf16 --seed 11
source bench/jobs/python.sh
