#!/usr/bin/env bash
# slurmctld.sh stop|start — stop or start only the controller of the test cluster from .ci/slurm-up.sh (slurmd,
# munged and running jobs stay), for tests of a controller restart. start recovers the saved state (jobs keep
# their ids and go on) from the same slurm.conf. By PID file only, never by process name.
set -euo pipefail
# the cluster SLURM_CONF names (slurm-up.sh keeps it in $D/etc), else slurm-up.sh's default
if [ -n "${SLURM_CONF:-}" ]; then D=$(dirname "$(dirname "$SLURM_CONF")"); else D=${SLURM_TEST_DIR:-/tmp/tandem-slurm}; fi
export SLURM_CONF=$D/etc/slurm.conf
pidfile=$D/run/slurmctld.pid
[ "$(id -u)" = 0 ] || { echo "must run as root" >&2; exit 1; }
[ -f "$SLURM_CONF" ] || { echo "no test cluster at $D (run .ci/slurm-up.sh)" >&2; exit 1; }
running() { [ -s "$pidfile" ] && [ -r "/proc/$(cat "$pidfile")/stat" ] && ! awk '{exit ($3=="Z")?0:1}' "/proc/$(cat "$pidfile")/stat"; }
case "${1:-}" in
  stop)
    if running; then
      p=$(cat "$pidfile")
      kill -TERM "$p"
      for _ in $(seq 100); do running || break; sleep 0.1; done
      running && { echo "slurmctld pid $p did not stop" >&2; exit 1; }
    fi
    echo "slurmctld stopped" ;;
  start)
    running || slurmctld -f "$SLURM_CONF"   # no -i/-c: recover the saved jobs
    for _ in $(seq 100); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.2; done
    scontrol ping | grep -q UP || { tail -n 20 "$D/log/slurmctld.log" >&2; exit 1; }
    echo "slurmctld up (pid $(cat "$pidfile"))" ;;
  *) echo "usage: $0 stop|start" >&2; exit 2 ;;
esac
