# Issue 13, session 6, last call: after the fixes of the second call (k0 with its own pointer rules
# per operand, a cuBLASLt candidate set that refuses to run treated as no algorithm, auto falling
# back to our kernel then): the semantics matrix, then the fuzzer over every type.
gt pipegemm_gpu_tests '*Semantics*:GpuFuzz.*'
pg fuzz --count 2000 --dtype f16,bf16,i8,f32 --seed 13
