# Session 14, call 3: programmatic dependent launch on by default (k5 and skinny; $PIPEGEMM_PDL=0 is
# the opt-out): the chain test (poisoned intermediates), the k5 / skinny / stream-K GPU tests, a fuzz.
# Run: scripts/gpu_session.sh bench/jobs/s14_call3.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests 'K5Pdl.*:K5StreamK.*:Skinny*:K5Verify.*'
pg fuzz --count 500 --dtype f16,bf16 --seed 20261214
