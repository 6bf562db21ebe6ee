#!/usr/bin/env bash
# A tiny CPU "training" program for tests: ITERS iterations of SLEEP seconds, each reported with the optional
# progress protocol line "tandem:progress iter=N".
#   --oom-on-attempt K  on attempt K (TANDEM_ATTEMPT) fail at iteration 3 the way PyTorch does: the real
#                       "CUDA out of memory" message on stderr, exit status 1
#   --exit CODE         after the last iteration exit with CODE
#   --crash-at K        exit with status 1 at iteration K, without any message
#   --env               print the CUDA_* and TANDEM_* variables it was given
#   --start-delay S     wait S seconds before the first iteration (a slow start, as importing PyTorch can be)
iters=$1; pause=$2; shift 2
oom_attempt=; code=0; crash_at=; start_delay=
while [ $# -gt 0 ]; do
  case "$1" in
    --oom-on-attempt) oom_attempt=$2; shift 2 ;;
    --exit) code=$2; shift 2 ;;
    --crash-at) crash_at=$2; shift 2 ;;
    --env) env | grep -E '^(CUDA|TANDEM)_' | sort; shift ;;
    --start-delay) start_delay=$2; shift 2 ;;
    *) echo "train.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
echo "training for $iters iterations"
[ -n "$start_delay" ] && sleep "$start_delay"
for ((i = 1; i <= iters; i++)); do
  if [ "$i" = 3 ] && [ -n "$oom_attempt" ] && [ "${TANDEM_ATTEMPT:-1}" = "$oom_attempt" ]; then
    cat >&2 <<'OOM'
Traceback (most recent call last):
  File "/work/train.py", line 88, in <module>
    loss = model(batch).loss
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.06 GiB is free. Including non-PyTorch memory, this process has 78.12 GiB memory in use. Of the allocated memory 75.30 GiB is allocated by PyTorch, and 1.54 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)
OOM
    exit 1
  fi
  [ "$i" = "$crash_at" ] && exit 1
  echo "tandem:progress iter=$i"
  sleep "$pause"
done
echo "done"
exit "$code"
