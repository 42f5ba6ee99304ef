# Session 19 (written without a device): issue 12's "fuzz passes again, 10,000 problems per type,
# with every new variant included" -- every variant that accepts a problem runs it, so the wide
# tile, its 1x2-cluster form and the s8 packed form (sessions 18-19) are in. The four types at once,
# each its own process. Run it once s19_call1 and s18_call2 have passed; to fuzz the deferred
# general form too, start the call with it on:
#   PIPEGEMM_K5_GENERAL_DEFER=1 scripts/gpu_session.sh bench/jobs/s19_fuzz10k.sh pipegemm_cli
note "PIPEGEMM_K5_GENERAL_DEFER=${PIPEGEMM_K5_GENERAL_DEFER:-unset}"
fuzz_every_type 10000 19 480
