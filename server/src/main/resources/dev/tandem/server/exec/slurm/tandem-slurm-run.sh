#!/bin/bash
# tandem's Slurm batch script, written by tandem serve into STATE_DIR/bin and given to sbatch with two arguments,
# JOB_DIR and ATTEMPT (tandem's own paths, never user input). The job's argv and environment are read from
# NUL-separated files that the daemon wrote, so no user string is ever parsed by a shell: "${argv[@]}" passes
# quotes, spaces, $(...), ';' and newlines through as they are. The exit status goes to a file, so that a
# restarted daemon learns how a job ended even after Slurm has forgotten it (MinJobAge).
dir=$1
attempt=$2
while IFS= read -r -d '' kv; do export "$kv"; done < "$dir/env-$attempt"
mapfile -d '' -t argv < "$dir/argv-$attempt"
"${argv[@]}"
code=$?
echo "$code" > "$dir/exit-$attempt.tmp" && mv "$dir/exit-$attempt.tmp" "$dir/exit-$attempt"
exit "$code"
