#!/usr/bin/env bash
# The prepared real-GPU check of tandem (one GPU machine, under 8 minutes, nothing fetched there).
#
# Run it from the bundle scripts/make-gpu-bundle.sh makes (tandem.jar, a Java runtime made with jlink, the
# workload suite, this script), on a machine with an NVIDIA GPU, its driver, and Python with CUDA PyTorch:
#
#   tar xzf tandem-gpu-check.tar.gz && tandem-gpu-check/gpu-check.sh [OUT_DIR]
#
# It records the machine (nvidia-smi -q; whether NVML, DCGM and MPS are there), calibrates the workload suite on
# GPU 0 with a short budget (tandem calibrate: profiles.csv, pairs.csv), then runs the same batch of short real
# training jobs under tandem serve twice, --policy fifo and --policy tandem (time-slicing), and a third time with
# --sharing mps when the MPS control daemon starts, and writes per-job times (tandem history --csv), each
# makespan, the daemons' logs and a summary to OUT_DIR (default gpu-check-HOST-DATE). Every GPU path is the real
# one: nvidia-smi, dcgmi and nvidia-cuda-mps-control from the machine's PATH.
#
# Knobs (environment): GPU_CHECK_WORKLOADS (resnet18:64,dcgan:64,lstm:32,transformer:32: calibrated, and the batch's
# jobs in turn), GPU_CHECK_JOBS (12), GPU_CHECK_JOB_SECONDS (20: each job's length alone),
# GPU_CHECK_CALIBRATE_BUDGET (150s), GPU_CHECK_MEASURE (15s), GPU_CHECK_PYTHON (python3), GPU_CHECK_MPS (auto|no),
# GPU_CHECK_ALLOW_CPU (no; yes lets the jobs train on the CPU, for trying the script where CUDA is missing).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-gpu-check-$(hostname -s)-$(date -u +%Y%m%dT%H%M%SZ)}"
workloads="${GPU_CHECK_WORKLOADS:-resnet18:64,dcgan:64,lstm:32,transformer:32}"
jobs_n="${GPU_CHECK_JOBS:-12}"
job_s="${GPU_CHECK_JOB_SECONDS:-20}"
budget="${GPU_CHECK_CALIBRATE_BUDGET:-150s}"
measure="${GPU_CHECK_MEASURE:-15s}"
python="${GPU_CHECK_PYTHON:-python3}"
mps="${GPU_CHECK_MPS:-auto}"
allow_cpu="${GPU_CHECK_ALLOW_CPU:-no}"
started=$(date +%s)

say() { echo "gpu-check: $*" | tee -a "$out/summary.txt" >&2; }
mkdir -p "$out"
out="$(cd "$out" && pwd)"
: > "$out/summary.txt"

# --- Java: the bundled runtime, else a java 25 on PATH
if [ -x "$here/runtime/bin/java" ]; then java="$here/runtime/bin/java"
elif [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then java="$JAVA_HOME/bin/java"
else java="$(command -v java || true)"; fi
[ -n "$java" ] || { say "no Java: the bundle's runtime/ is missing and there is no java on PATH"; exit 1; }
jar="$here/tandem.jar"
[ -f "$jar" ] || jar="$here/../cli/target/tandem.jar"   # run from a repository checkout
[ -f "$jar" ] || { say "no tandem.jar next to this script"; exit 1; }
suite="$here/workloads/train.py"
[ -f "$suite" ] || suite="$here/../workloads/train.py"
tandem() { "$java" -jar "$jar" "$@"; }

# --- the machine
command -v nvidia-smi >/dev/null || { say "nvidia-smi is not on PATH: not a GPU machine (or no NVIDIA driver)"; exit 1; }
nvidia-smi -q > "$out/nvidia-smi-q.txt" 2>&1 || true
nvidia-smi --query-gpu=index,uuid,name,memory.total,driver_version --format=csv > "$out/gpus.csv" 2>&1 || true
{
  echo "date: $(date -u +%FT%TZ)"
  echo "host: $(hostname)"
  echo "kernel: $(uname -r)"
  echo "java: $("$java" -version 2>&1 | head -n 1)"
  echo "nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -n 1)"
  if ldconfig -p 2>/dev/null | grep -q libnvidia-ml.so; then echo "NVML: libnvidia-ml.so present"; else echo "NVML: libnvidia-ml.so not found by ldconfig"; fi
  if command -v dcgmi >/dev/null; then echo "DCGM: $(dcgmi discovery -l 2>&1 | head -n 3 | tr '\n' ' ')"; else echo "DCGM: dcgmi not on PATH"; fi
  if command -v nvidia-cuda-mps-control >/dev/null; then echo "MPS: nvidia-cuda-mps-control present"; else echo "MPS: nvidia-cuda-mps-control not on PATH"; fi
  echo "torch: $("$python" -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())' 2>&1 | tail -n 1)"
} > "$out/availability.txt"
cat "$out/availability.txt" >&2
if ! "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null && [ "$allow_cpu" != yes ]; then
  say "PyTorch with CUDA is not available to $python; set GPU_CHECK_PYTHON, or GPU_CHECK_ALLOW_CPU=yes to try the script on the CPU"
  exit 1
fi

# --- calibration on GPU 0
say "calibrating the suite (budget $budget)"
tandem calibrate --workloads "$workloads" --budget "$budget" --measure "$measure" \
  --suite "$suite" --python "$python" --out "$out/calibration" 2>&1 | tee "$out/calibration.log" >&2

# --- the same batch under fifo and tandem (and MPS)
daemon=""
trap '[ -n "$daemon" ] && kill -TERM "$daemon" 2>/dev/null || true' EXIT
IFS=, read -r -a models <<< "$workloads"
known=none
[ -s "$out/calibration/profiles.csv" ] && known="$out/calibration/profiles.csv"
run_batch() { # NAME, then serve options
  local name="$1"; shift
  local state="$out/serve-$name" port
  port=$((20000 + RANDOM % 20000))
  "$java" -jar "$jar" serve --state-dir "$state" --port "$port" --known-profiles "$known" --profile-time 10s \
    --observe-time 5s --tick 200ms --round 2s --log-format json "$@" > "$out/daemon-$name.log" 2>&1 &
  local pid=$!
  daemon="$pid"
  for _ in $(seq 1 60); do [ -f "$state/server.url" ] && break; sleep 1; done
  [ -f "$state/server.url" ] || { say "$name: the daemon did not start (see daemon-$name.log)"; kill "$pid" 2>/dev/null || true; return 1; }
  local i spec model batch iters speed
  for i in $(seq 0 $((jobs_n - 1))); do
    spec="${models[$((i % ${#models[@]}))]}"; model="${spec%%:*}"; batch=32
    [[ "$spec" == *:* ]] && { batch="${spec#*:}"; batch="${batch%%:*}"; }
    # iterations for GPU_CHECK_JOB_SECONDS alone, at the speed calibration measured (100 it/s if it has none)
    speed="$(awk -F, -v m="$model" -v b="$batch" '$1==m && $3==b {print $5}' "$out/calibration/profiles.csv" 2>/dev/null | head -n 1)"
    iters="$(awk -v s="${speed:-100}" -v t="$job_s" 'BEGIN { n = int(s * t); print (n < 10 ? 10 : n) }')"
    TANDEM_STATE_DIR="$state" tandem submit --name "$model-$i" --model "$model" --dataset synthetic --batch-size "$batch" \
      --iterations "$iters" -- "$python" "$suite" --model "$model" --batch-size "$batch" --iterations "$iters" >/dev/null
  done
  local deadline=$(( $(date +%s) + 40 * job_s + 120 ))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    [ -z "$(TANDEM_STATE_DIR="$state" tandem queue 2>/dev/null | tail -n +2)" ] && break
    sleep 2
  done
  TANDEM_STATE_DIR="$state" tandem history --csv > "$out/jobs-$name.csv"
  TANDEM_STATE_DIR="$state" tandem queue --all > "$out/queue-$name.txt" 2>&1 || true
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  # makespan: first submission to last finish, from the accounting CSV (ISO times, UTC)
  "$python" - "$out/jobs-$name.csv" <<'PY' > "$out/makespan-$name.txt"
import csv, sys
from datetime import datetime
rows = list(csv.DictReader(open(sys.argv[1])))
t = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
ok = [r for r in rows if r["state"] == "succeeded"]
print("%.1f" % (max(t(r["finished_at"]) for r in rows) - min(t(r["submitted_at"]) for r in rows)) if rows else "nan", len(ok), len(rows))
PY
  say "$name: makespan $(cut -d' ' -f1 "$out/makespan-$name.txt") s, $(cut -d' ' -f2 "$out/makespan-$name.txt") of $(cut -d' ' -f3 "$out/makespan-$name.txt") jobs succeeded"
}

run_batch fifo --policy fifo
run_batch tandem --policy tandem
if [ "$mps" != no ] && command -v nvidia-cuda-mps-control >/dev/null; then
  run_batch tandem-mps --policy tandem --sharing mps || say "tandem-mps: MPS did not start; see daemon-tandem-mps.log"
fi
fifo="$(cut -d' ' -f1 "$out/makespan-fifo.txt")"; tand="$(cut -d' ' -f1 "$out/makespan-tandem.txt")"
say "FIFO/tandem makespan ratio: $(awk -v f="$fifo" -v t="$tand" 'BEGIN { if (t > 0) printf "%.2f", f / t; else print "nan" }') (fifo $fifo s, tandem $tand s)"
say "done in $(( $(date +%s) - started )) s; outputs in $out"
