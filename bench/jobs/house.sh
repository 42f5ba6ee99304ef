# The house change (issue 10): the registry now comes from src/registry/variants.def, every run
# goes through GemmCall, the toolchain is one module, the CLI renders report structs. Behaviour
# must be unchanged: every GPU test, every variant verified on odd and large shapes in every type,
# the SASS verdicts, and the timings of the fast rungs beside cuBLAS as before.
# Run with PIPEGEMM_ARCHS="80;90a": the CPU tests too, and this build's binary comes back for the
# SASS comparison with the pre-change build (scripts/sass_diff.py).
gt pipegemm_unit_tests
gt pipegemm_gpu_tests
cp "$PG" "$OUT/pipegemm.bin"
