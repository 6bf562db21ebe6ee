#!/bin/sh
# tandem job wrapper, written by tandem serve into STATE_DIR/bin. It runs the job's argv exactly as given
# ("$@": no shell parsing of the command) and records its exit status in a file, so that a daemon restarted
# after a crash learns how a job it re-adopted ended, although the job is no longer its child.
# usage: tandem-run.sh JOB_DIR ATTEMPT -- ARGV...
dir=$1
attempt=$2
shift 3
echo $$ > "$dir/pid-$attempt"
"$@"
code=$?
echo "$code" > "$dir/exit-$attempt.tmp" && mv "$dir/exit-$attempt.tmp" "$dir/exit-$attempt"
exit "$code"
