# Session 11, call 5: what CI checks, built as CI builds it (PIPEGEMM_ARCHS="80;90a"): the SASS
# verdict of every registered kernel on both archs, the unit tests, then the skinny GPU tests on
# the kernel as shipped (call 3's single-buffer loop).
# Run: PIPEGEMM_ARCHS="80;90a" scripts/gpu_session.sh bench/jobs/s11_call5.sh pipegemm_cli pipegemm_unit_tests pipegemm_gpu_tests pipegemm_sass_fixtures
pg sass --arch all --brief
gt pipegemm_unit_tests
gt pipegemm_gpu_tests 'Skinny*:K4SplitK*:AutoChoice*'
