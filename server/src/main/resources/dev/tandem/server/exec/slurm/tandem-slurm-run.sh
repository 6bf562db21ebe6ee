#!/bin/bash
# tandem's Slurm batch script, written by tandem serve into STATE_DIR/bin and given to sbatch with two arguments,
# JOB_DIR and ATTEMPT (tandem's own paths, never user input). The job's argv and environment are read from
# NUL-separated files that the daemon wrote, so no user string is ever parsed by a shell: "${argv[@]}" passes
# quotes, spaces, $(...), ';' and newlines through as they are. The exit status goes to a file, so that a
# restarted daemon learns how a job ended even after Slurm has forgotten it (MinJobAge).
dir=$1
attempt=$2

# The job runs in the working directory its owner gave or not at all: Slurm runs a job whose --chdir is missing on
# the node in /tmp, saying so only in the job's output. nodir-ATTEMPT tells the daemon why this run did not run.
mapfile -d '' -t workdir < "$dir/workdir-$attempt"
if ! cd -- "${workdir[0]}" 2>/dev/null; then
  why="cannot enter the job's working directory ${workdir[0]} on Slurm node ${SLURMD_NODENAME:-$(hostname)} (is it on a file system the node shares?); the job did not run"
  echo "[tandem] $why" >&2
  echo "$why" > "$dir/nodir-$attempt.tmp" && mv "$dir/nodir-$attempt.tmp" "$dir/nodir-$attempt"
  exit 1
fi

# A profiling run (the daemon wrote profile-ATTEMPT: the window in seconds) samples the node's GPUs beside the job
# with the argv the daemon wrote to nvidia-smi-argv-ATTEMPT and dcgmi-argv-ATTEMPT (dcgmi only where the node has
# it), each into TOOL-ATTEMPT.out, for the window or until the job ends, whichever is first; samples-ATTEMPT.done
# then tells the daemon that the readings are complete.
sample_gpus() {
  local pids=() tool cmd
  trap 'kill -TERM "${pids[@]}" 2>/dev/null' TERM
  for tool in nvidia-smi dcgmi; do
    [ -f "$dir/$tool-argv-$attempt" ] || continue
    mapfile -d '' -t cmd < "$dir/$tool-argv-$attempt"
    if command -v "${cmd[0]}" >/dev/null; then
      timeout "$window" "${cmd[@]}" > "$dir/$tool-$attempt.out" 2>/dev/null < /dev/null &
      pids+=("$!")
    elif [ "$tool" = nvidia-smi ]; then
      echo "[tandem] ${cmd[0]} not found on $(hostname): this profiling run has no GPU readings" >&2
    fi
  done
  # wait returns early when the TERM trap ran; go on waiting until the samplers have really ended
  while [ -n "$(jobs -pr)" ]; do wait; done
  : > "$dir/samples-$attempt.done"
}
sampler=
if [ -f "$dir/profile-$attempt" ]; then
  window=$(< "$dir/profile-$attempt")
  sample_gpus &
  sampler=$!
fi

while IFS= read -r -d '' kv; do export "$kv"; done < "$dir/env-$attempt"
mapfile -d '' -t argv < "$dir/argv-$attempt"
"${argv[@]}"
code=$?
if [ -n "$sampler" ]; then
  kill -TERM "$sampler" 2>/dev/null
  wait "$sampler"
fi
echo "$code" > "$dir/exit-$attempt.tmp" && mv "$dir/exit-$attempt.tmp" "$dir/exit-$attempt"
exit "$code"
