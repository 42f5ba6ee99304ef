# Why `import pipegemm, torch` crashes in torch's op registration when `import torch, pipegemm`
# does not (session 6): which libraries the extension needs and exports, which CUDA libraries
# torch loads, and whether loading the toolkit's copy of each before torch is enough to crash it.
# Then the package tests with torch imported first, to see the rest of them.
source bench/jobs/python.sh
SO=$(ls "$PYLIB"/pipegemm/_pipegemm*.so)
{
  echo; echo "\$ readelf -d _pipegemm.so | NEEDED/RUNPATH; exported symbols"
  readelf -d "$SO" | grep -E "NEEDED|RPATH|RUNPATH"
  nm -D --defined-only "$SO" | wc -l
  nm -D --defined-only "$SO" | awk '{print $3}' | sed 's/[0-9].*//' | cut -c1-12 | sort | uniq -c | sort -rn | head -15
  echo; echo "\$ torch's CUDA libraries (after one cuda matmul)"
  python3 -c "import torch; print(torch.__version__, torch.version.cuda); a=torch.randn(64,64,device='cuda'); (a@a).sum().item(); print(''.join(sorted({l.split()[-1]+'\n' for l in open('/proc/self/maps') if 'libcu' in l or 'nvidia' in l})))"
  ls /usr/local/cuda/lib64/libcublas* /usr/local/cuda/lib64/libcudart* 2>&1 | head
  for lib in libcudart.so.13 libcublas.so.13 libcublasLt.so.13; do
    echo; echo "\$ preload toolkit $lib then import torch"
    python3 -X faulthandler -c "import ctypes; ctypes.CDLL('/usr/local/cuda/lib64/$lib', mode=ctypes.RTLD_GLOBAL); import torch; print('ok')" 2>&1 | tail -3
  done
  echo; echo "\$ (cd pylib && python3 -c 'import torch, unittest; unittest.main(module=None, argv=[x, discover, -s, tests, -v])')"
  (cd "$PYLIB" && python3 -X faulthandler -c "import torch, unittest; unittest.main(module=None, argv=['x','discover','-s','tests','-v'])")
  echo "# exit $?"
  echo; echo "\$ (cd pylib && python3 -c 'import torch; exec(bench_overhead)')"
  (cd "$PYLIB" && PYTHONPATH="$PYLIB" python3 -X faulthandler -c "import torch, runpy; runpy.run_path('tests/bench_overhead.py', run_name='__main__')")
  echo "# exit $?"
} >> "$OUT/run.log" 2>&1
