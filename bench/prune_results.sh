#!/usr/bin/env bash
# Deletes from bench/results/ everything but the curated folders: README.md, the reference reports
# of each GPU (h100/, h200/, and any other <gpu>/ folder bench/run_reference.sh made: it holds a
# summary.md) and evidence/ (the files the docs cite). Tracked files with `git rm` (git history
# keeps them), untracked ones with rm.
#   usage: bench/prune_results.sh [--dry-run]
set -euo pipefail
cd "$(dirname "$0")/results"
DRY=0
[ "${1:-}" = --dry-run ] && DRY=1
n=0
for entry in * .[!.]*; do
  [ -e "$entry" ] || continue
  case "$entry" in
    README.md|h100|h200|evidence) continue ;;
  esac
  [ -d "$entry" ] && [ -f "$entry/summary.md" ] && continue
  n=$((n + 1))
  if [ $DRY = 1 ]; then
    echo "would delete bench/results/$entry"
  elif git ls-files --error-unmatch -- "$entry" > /dev/null 2>&1; then
    git rm -r -q -- "$entry"
    rm -rf -- "$entry"  # what git did not track inside a tracked folder
  else
    rm -rf -- "$entry"
  fi
done
echo "bench/results: $n entr$([ $n = 1 ] && echo y || echo ies) $([ $DRY = 1 ] && echo 'would go' || echo deleted); kept: $(ls -d README.md */ 2>/dev/null | tr '\n' ' ')"
