# Session 7, fifth call: the C++ torch ops' tests again after the exports test's fix (it expected
# libstdc++.so as NEEDED, which this image's toolchain links statically), the overhead benchmark,
# and where k5's epilogue time goes (bench/suites/epilogue_parts.txt, burst protocol).
PY_BACKENDS=cpp source bench/jobs/python_ops.sh
pg bench --suite bench/suites/epilogue_parts.txt --dtype f16 --kernel k5_f16_128x256x64_s4 --reps 30 --rounds 2 --idle-ms 25
