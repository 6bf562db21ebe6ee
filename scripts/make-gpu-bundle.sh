#!/usr/bin/env bash
# Makes the bundle scripts/gpu-check.sh runs from on a GPU machine where nothing may be fetched: tandem.jar (without
# the SQLite natives of other systems than Linux x86_64/aarch64), a Java runtime made with jlink from this JDK (for a
# machine without Java 25), the workload suite and gpu-check.sh; refuses to write a bundle of 64 MiB or more.
#
#   scripts/make-gpu-bundle.sh [OUT.tar.gz]      (default out/tandem-gpu-check.tar.gz)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/out/tandem-gpu-check.tar.gz}"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
limit=$((64 * 1024 * 1024))

(cd "$root" && mvn -B -q -Dstyle.color=never -DskipTests -pl cli -am package)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
stage="$work/tandem-gpu-check"
mkdir -p "$stage/workloads"
cp "$root/cli/target/tandem.jar" "$stage/tandem.jar"
# the check runs on Linux; SQLite's natives for other systems are 80 % of its weight
zip -q -d "$stage/tandem.jar" 'org/sqlite/native/Mac/*' 'org/sqlite/native/Windows/*' 'org/sqlite/native/FreeBSD/*' \
  'org/sqlite/native/Linux-Musl/*' 'org/sqlite/native/Linux-Android/*' 'org/sqlite/native/Linux/arm/*' 'org/sqlite/native/Linux/armv6/*' \
  'org/sqlite/native/Linux/armv7/*' 'org/sqlite/native/Linux/ppc64/*' 'org/sqlite/native/Linux/riscv64/*' 'org/sqlite/native/Linux/x86/*' >/dev/null || true
cp "$root/workloads/train.py" "$root/workloads/tandem_progress.py" "$root/workloads/README.md" "$stage/workloads/"
cp "$root/scripts/gpu-check.sh" "$stage/gpu-check.sh"
cp "$root/LICENSE" "$stage/LICENSE"
# jdeps lists java.desktop, java.rmi, java.security.jgss and java.instrument too (optional paths of libraries: bean
# introspection, RMI, Kerberos, agents); none is on a path gpu-check.sh runs, and they would double the runtime
modules="java.base,java.logging,java.management,java.naming,java.net.http,java.sql,java.xml,jdk.crypto.ec,jdk.unsupported,jdk.zipfs"
"$JAVA_HOME/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages --compress=zip-9 --output "$stage/runtime"
# the runtime must run what the check runs: a simulation, and the daemon's and client's start
"$stage/runtime/bin/java" -jar "$stage/tandem.jar" simulate --jobs 10 --sizes 1 --policy fifo,tandem --no-bound >/dev/null
"$stage/runtime/bin/java" -jar "$stage/tandem.jar" calibrate --help >/dev/null
mkdir -p "$(dirname "$out")"
tar czf "$out" -C "$work" tandem-gpu-check
size=$(stat -c %s "$out")
tree=$(du -sb "$stage" | cut -f1)
echo "bundle $out: $((size / 1024 / 1024)) MiB packed, $((tree / 1024 / 1024)) MiB unpacked (jar $(($(stat -c %s "$stage/tandem.jar") / 1024 / 1024)) MiB, runtime $(($(du -sb "$stage/runtime" | cut -f1) / 1024 / 1024)) MiB; modules $modules)"
if [ "$size" -ge "$limit" ]; then
  echo "make-gpu-bundle: the bundle must stay under 64 MiB" >&2
  rm -f "$out"
  exit 1
fi
