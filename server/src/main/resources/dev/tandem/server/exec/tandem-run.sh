#!/bin/sh
# tandem job wrapper, written by tandem serve into STATE_DIR/bin. It runs the job's argv exactly as given
# ("$@": no shell parsing of the command) and records its exit status in a file, so that a daemon restarted
# after a crash learns how a job it re-adopted ended, although the job is no longer its child. Given a file of
# the run's cgroups (else "-"; "KIND PATH" lines, KIND main or a cgroup v1 controller), it moves itself into each
# first, so that the job and everything it starts belong to the run's cgroups and their limits.
# usage: tandem-run.sh JOB_DIR ATTEMPT CGROUP_FILE|- -- ARGV...
dir=$1
attempt=$2
cgroups=$3
shift 4
echo $$ > "$dir/pid-$attempt"
finish() {
    echo "$1" > "$dir/exit-$attempt.tmp" && mv "$dir/exit-$attempt.tmp" "$dir/exit-$attempt"
    exit "$1"
}
if [ "$cgroups" != "-" ]; then
    while read -r kind cg; do
        if ! echo $$ > "$cg/cgroup.procs"; then
            echo "[tandem] cannot enter the run's $kind cgroup $cg; the job was not started" >&2
            finish 125
        fi
    done < "$cgroups"
fi
"$@"
finish $?
