#!/usr/bin/env bash
# slurm-down.sh (tandem CI copy) — stop the test cluster started by .ci/slurm-up.sh, by PID file only
# (never by process name). Idempotent. SLURM_WIPE=1 also deletes $SLURM_TEST_DIR.
set -uo pipefail
D=${SLURM_TEST_DIR:-/tmp/tandem-slurm}
export SLURM_CONF=$D/etc/slurm.conf

# running = exists and is not a zombie (PID 1 in this sandbox does not always reap promptly)
running() { [ -r "/proc/$1/stat" ] && ! awk '{exit ($3=="Z")?0:1}' "/proc/$1/stat" 2>/dev/null; }
stop_pid() {  # $1 = pid file
  local f=$1 p
  [ -s "$f" ] || return 0
  p=$(cat "$f")
  if running "$p"; then
    kill -TERM "$p" 2>/dev/null
    for _ in $(seq 100); do running "$p" || break; sleep 0.1; done
    running "$p" && kill -KILL "$p" 2>/dev/null
    echo "stopped $(basename "$f" .pid) pid $p"
  fi
  rm -f "$f"
}

# running jobs first, so slurmstepd/job processes go away cleanly
if [ -f "$SLURM_CONF" ] && [ -s "$D/run/slurmctld.pid" ] && running "$(cat "$D/run/slurmctld.pid")"; then
  if [ -n "$(squeue -h -o %i 2>/dev/null)" ]; then
    timeout 10 scancel --quiet 2>/dev/null || true
    for _ in $(seq 50); do [ -z "$(squeue -h -t R,CG -o %i 2>/dev/null)" ] && break; sleep 0.2; done
  fi
fi
for f in "$D"/run/slurmd-*.pid; do [ -e "$f" ] && stop_pid "$f"; done
for f in "$D"/run/slurmrestd*.pid; do [ -e "$f" ] && stop_pid "$f"; done
stop_pid "$D/run/slurmctld.pid"
stop_pid "$D/run/slurmdbd.pid"
stop_pid "$D/run/mariadbd.pid"
stop_pid "$D/run/munged.pid"
rm -f "$D/munge/munge.socket" "$D/munge/munge.socket.lock" "$D/run/params"
[ "${SLURM_WIPE:-0}" = 1 ] && rm -rf "$D" && echo "wiped $D"
exit 0
