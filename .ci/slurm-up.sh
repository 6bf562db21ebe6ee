#!/usr/bin/env bash
# slurm-up.sh (tandem CI copy) — start a throw-away, single-host Slurm 22.05 cluster (Debian 12 packages)
# on loopback only, with fake GPUs declared as GRES (no real devices needed).
#
#   sudo/root:  SLURM_NODES=2 bash slurm-up.sh      # idempotent; prints "export SLURM_CONF=..."
#   bash slurm-down.sh                              # stops every daemon by its PID file
#
# Everything lives in $SLURM_TEST_DIR (default /tmp/slurm-test): config, munge key+socket,
# state, spool, logs, pid files. Nothing is written to /etc. Clients find the cluster via
# SLURM_CONF=$SLURM_TEST_DIR/etc/slurm.conf.
#
# Fake nodes: several slurmd on one host, each with its own NodeName (-N nodeI), its own port
# (Port= on the NodeName line), spool/log/pid via %n, all bound to 127.0.0.1 (NoInAddrAny).
# Optional SLURM_NODE_MODE=ns runs each slurmd in its own UTS+mount namespace instead, so that
# hostname inside a job == node name. Fake GPUs: gres.conf File= points at fake char devices.
# Measured on a 2-core Debian 12 sandbox: 0.4-0.6 s for 1-8 nodes (+~2 s with SLURM_DBD=1),
# plus ~11 s once for apt-get install.
set -euo pipefail

D=${SLURM_TEST_DIR:-/tmp/tandem-slurm}
NODES=${SLURM_NODES:-2}                 # number of fake compute nodes (node1..nodeN)
GPUS=${SLURM_GPUS_PER_NODE:-4}          # gpu GRES per node
SHARDS=${SLURM_SHARDS_PER_NODE:-16}     # shard (or mps) GRES count per node, spread evenly over the GPUs
SHARING=${SLURM_SHARING:-shard}         # shard | mps | none  — how a GPU is subdivided for co-location
CPUS=${SLURM_CPUS_PER_NODE:-16}         # advertised, not real (SlurmdParameters=config_overrides)
MEM=${SLURM_MEM_PER_NODE:-64000}        # MB, advertised, not real
CTLD_PORT=${SLURM_CTLD_PORT:-16817}
SLURMD_PORT0=${SLURM_SLURMD_BASE_PORT:-16900}   # node i listens on SLURMD_PORT0+i-1
FAKE_DEV=${SLURM_FAKE_GPU_FILES:-1}     # 1: gres.conf File=$D/dev/nvidia[0-N] (fake char devices) -> works, CUDA_VISIBLE_DEVICES set
                                        # 0: Count only, no File -> slurmd 22.05 drops the GPUs, nodes go INVAL (kept to show it)
KEEP_STATE=${SLURM_KEEP_STATE:-0}       # 0: every (re)start begins with an empty job queue, job ids from 1
REST=${SLURM_REST:-0}                   # 1: also start slurmrestd (unix socket, rest_auth/local) + (if jwt plugin) TCP 127.0.0.1:$REST_PORT (rest_auth/jwt)
REST_PORT=${SLURM_REST_PORT:-16820}
DBD=${SLURM_DBD:-0}                     # 1: also MariaDB (127.0.0.1:$DB_PORT) + slurmdbd (127.0.0.1:$DBD_PORT) -> real sacct, sacct --json
DB_PORT=${SLURM_DB_PORT:-16306}
DBD_PORT=${SLURM_DBD_PORT:-16819}
TIMEOUT=${SLURM_UP_TIMEOUT:-60}
MODE=${SLURM_NODE_MODE:-N}              # N : plain "slurmd -N nodeI" (NodeHostname=localhost) — default, simplest
                                        # ns: one UTS+mount namespace per slurmd (hostname=node name, private /etc/hosts)

t0=$(date +%s%N)
log() { local ms=$(( ($(date +%s%N) - t0) / 1000000 )); printf '[slurm-up %d.%03ds] %s\n' $((ms/1000)) $((ms%1000)) "$*" >&2; }
[ "$(id -u)" = 0 ] || { echo "must run as root" >&2; exit 1; }

# --- 0. packages (only if missing) -----------------------------------------------------------
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null || ! command -v sbatch >/dev/null; then
  log "installing Debian packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null
fi
if [ "$DBD" = 1 ] && { ! command -v slurmdbd >/dev/null || ! command -v mariadbd >/dev/null; }; then
  log "installing slurmdbd + mariadb-server"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurmdbd mariadb-server >/dev/null
fi

export SLURM_CONF=$D/etc/slurm.conf

# --- 1. idempotency: already up? -------------------------------------------------------------
alive() { [ -s "$1" ] && [ -r "/proc/$(cat "$1")/stat" ] && ! awk '{exit ($3=="Z")?0:1}' "/proc/$(cat "$1")/stat"; }
PARAMS="nodes=$NODES gpus=$GPUS shards=$SHARDS sharing=$SHARING cpus=$CPUS mem=$MEM ports=$CTLD_PORT,$SLURMD_PORT0,$REST_PORT,$DBD_PORT fakedev=$FAKE_DEV rest=$REST dbd=$DBD mode=$MODE dir=$D"
if [ -f "$SLURM_CONF" ] && alive "$D/run/munged.pid" && alive "$D/run/slurmctld.pid" \
   && scontrol ping 2>/dev/null | grep -q UP; then
  all=1; for i in $(seq 1 "$NODES"); do alive "$D/run/slurmd-node$i.pid" || all=0; done
  if [ "$DBD" = 1 ] && ! alive "$D/run/slurmdbd.pid"; then all=0; fi
  if [ $all = 1 ] && [ "$(cat "$D/run/params" 2>/dev/null)" = "$PARAMS" ]; then
    log "already running"; echo "export SLURM_CONF=$SLURM_CONF"; exit 0
  fi
fi
# something half-up or a different shape: tear down first (by PID files only)
[ -d "$D" ] && bash "$(dirname "$0")/slurm-down.sh" >/dev/null 2>&1 || true

[ "$KEEP_STATE" = 1 ] || rm -rf "$D/state" "$D/spool" "$D/mysql" "$D/log/jobcomp.txt"   # job ids restart at 1
mkdir -p "$D"/{etc,run,log,state,spool,munge,dev,jobs}
for i in $(seq 1 "$NODES"); do mkdir -p "$D/spool/node$i"; done
chmod 700 "$D/munge"

# --- 2. munge: private key + private socket ------------------------------------------------
[ -s "$D/munge/munge.key" ] || { dd if=/dev/urandom of="$D/munge/munge.key" bs=1 count=1024 status=none; }
chmod 400 "$D/munge/munge.key"
munged --force --socket="$D/munge/munge.socket" --key-file="$D/munge/munge.key" \
       --pid-file="$D/run/munged.pid" --log-file="$D/log/munged.log" --seed-file="$D/munge/munged.seed"
for _ in $(seq 50); do [ -S "$D/munge/munge.socket" ] && break; sleep 0.1; done
munge -n -S "$D/munge/munge.socket" | unmunge -S "$D/munge/munge.socket" >/dev/null
log "munged up (pid $(cat "$D/run/munged.pid"))"

# --- 3. config -----------------------------------------------------------------------------
# fake GPU device files. slurmd 22.05 drops a gpu GRES without File= ("Removing file-less GPU"),
# and File= must be a char/block device: mknod (major 195 = nvidia; never opened with task/none),
# or, where mknod is not allowed, a symlink to /dev/null (also accepted).
for i in $(seq 0 $((GPUS-1))); do
  [ -c "$D/dev/nvidia$i" ] && continue
  rm -f "$D/dev/nvidia$i"; mknod "$D/dev/nvidia$i" c 195 "$i" 2>/dev/null || ln -s /dev/null "$D/dev/nvidia$i"
done
# hosts file used inside each slurmd's mount namespace (mode ns): node names -> loopback
{ echo "127.0.0.1 localhost $(hostname)"; for i in $(seq 1 "$NODES"); do echo "127.0.0.1 node$i"; done; } > "$D/etc/hosts"
[ "$MODE" = ns ] && NH_FMT='node%d' || NH_FMT='localhost'
nodelines=""; greslines="AutoDetect=off"$'\n'
if [ "$SHARING" = none ]; then NODE_GRES="gpu:$GPUS"; GRES_TYPES=gpu; else NODE_GRES="gpu:$GPUS,$SHARING:$SHARDS"; GRES_TYPES="gpu,$SHARING"; fi
for i in $(seq 1 "$NODES"); do
  nodelines+="NodeName=node$i NodeAddr=127.0.0.1 NodeHostname=$(printf "$NH_FMT" $i) Port=$((SLURMD_PORT0+i-1)) CPUs=$CPUS Boards=1 SocketsPerBoard=1 CoresPerSocket=$CPUS ThreadsPerCore=1 RealMemory=$MEM Gres=$NODE_GRES Features=node$i State=UNKNOWN"$'\n'
  if [ "$FAKE_DEV" = 1 ]; then
    greslines+="NodeName=node$i Name=gpu File=$D/dev/nvidia[0-$((GPUS-1))]"$'\n'
  else
    greslines+="NodeName=node$i Name=gpu Count=$GPUS"$'\n'
  fi
  if [ "$SHARING" != none ]; then greslines+="NodeName=node$i Name=$SHARING Count=$SHARDS"$'\n'; fi
done

if [ "$DBD" = 1 ]; then
  ACCT_CONF="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$DBD_PORT
AccountingStoragePass=$D/munge/munge.socket
AccountingStorageTRES=gres/gpu,gres/shard,gres/mps"
else
  ACCT_CONF="AccountingStorageType=accounting_storage/none"
fi
JWT_CONF=""
if [ -e /usr/lib/x86_64-linux-gnu/slurm-wlm/auth_jwt.so ]; then   # package slurm-wlm-jwt-plugin
  [ -s "$D/etc/jwt_hs256.key" ] || dd if=/dev/urandom of="$D/etc/jwt_hs256.key" bs=32 count=1 status=none
  chmod 600 "$D/etc/jwt_hs256.key"
  JWT_CONF="AuthAltTypes=auth/jwt"$'\n'"AuthAltParameters=jwt_key=$D/etc/jwt_hs256.key"
fi
cat > "$SLURM_CONF" <<EOF
# generated by slurm-up.sh — throw-away test cluster, loopback only
ClusterName=schedtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$CTLD_PORT
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd-%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
# no cgroups in this sandbox: plain process tracking, no task containment
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=5
# without cgroups, the way Slurm enforces a job's --mem: the accounting poll kills a job over it (tandem's run limits)
JobAcctGatherParams=OverMemoryKill
$ACCT_CONF
JobCompType=jobcomp/filetxt
JobCompLoc=$D/log/jobcomp.txt
MpiDefault=none
MailProg=/bin/true
SwitchType=switch/none
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
GresTypes=$GRES_TYPES
SlurmdParameters=config_overrides
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
MessageTimeout=10
InactiveLimit=0
KillWait=5
MinJobAge=600
Waittime=0
$JWT_CONF
$nodelines
PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
printf '%s' "$greslines" > "$D/etc/gres.conf"
: > "$D/etc/cgroup.conf"
log "config written: $SLURM_CONF ($NODES nodes x $NODE_GRES, mode $MODE)"

# --- 4. daemons --------------------------------------------------------------------------------
if [ "$DBD" = 1 ]; then
  # MariaDB on 127.0.0.1 only, private datadir/socket; slurm's DB user created via the root unix socket
  if [ ! -d "$D/mysql/mysql" ]; then
    mariadb-install-db --no-defaults --datadir="$D/mysql" --user=root --auth-root-authentication-method=socket \
      --skip-test-db >"$D/log/mariadb-install.log" 2>&1
  fi
  ( exec mariadbd --no-defaults --datadir="$D/mysql" --socket="$D/run/mysqld.sock" --port="$DB_PORT" \
      --bind-address=127.0.0.1 --pid-file="$D/run/mariadbd.pid" --user=root --log-error="$D/log/mariadb.err" \
      --skip-log-bin --innodb-buffer-pool-size=64M --innodb-log-file-size=16M </dev/null >/dev/null 2>&1 ) &
  for _ in $(seq 150); do mariadb -S "$D/run/mysqld.sock" -e 'select 1' >/dev/null 2>&1 && break; sleep 0.1; done
  mariadb -S "$D/run/mysqld.sock" -e "CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurmpw';
    CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'slurmpw';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';"
  log "mariadbd up (pid $(cat "$D/run/mariadbd.pid"), 127.0.0.1:$DB_PORT)"
  cat > "$D/etc/slurmdbd.conf" <<DBDEOF
AuthType=auth/munge
AuthInfo=socket=$D/munge/munge.socket
$JWT_CONF
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$DBD_PORT
SlurmUser=root
PidFile=$D/run/slurmdbd.pid
LogFile=$D/log/slurmdbd.log
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=slurmpw
StorageLoc=slurm_acct_db
DBDEOF
  chmod 600 "$D/etc/slurmdbd.conf"
  slurmdbd    # no -f option: reads slurmdbd.conf next to $SLURM_CONF
  for _ in $(seq 150); do (exec 3<>"/dev/tcp/127.0.0.1/$DBD_PORT") 2>/dev/null && break; sleep 0.1; done
  log "slurmdbd up (pid $(cat "$D/run/slurmdbd.pid"), 127.0.0.1:$DBD_PORT)"
  sacctmgr -i add cluster schedtest >/dev/null 2>&1 || true
fi
slurmctld -f "$SLURM_CONF" -i
for _ in $(seq 100); do
  scontrol ping 2>/dev/null | grep -q UP && break
  alive "$D/run/slurmctld.pid" || { sleep 0.3; alive "$D/run/slurmctld.pid" || break; }
  sleep 0.2
done
scontrol ping | grep -q UP || { tail -20 "$D/log/slurmctld.log" >&2; exit 1; }
log "slurmctld up (pid $(cat "$D/run/slurmctld.pid"))"

for i in $(seq 1 "$NODES"); do
  if [ "$MODE" = ns ]; then
    # own UTS namespace so gethostname() == node name, own mount namespace so /etc/hosts maps
    # node names to 127.0.0.1 (needed by NoInAddrAny); shared netns (loopback), own port
    unshare --uts --mount sh -c "hostname node$i && mount --bind '$D/etc/hosts' /etc/hosts && exec slurmd -f '$SLURM_CONF'"
  else
    slurmd -f "$SLURM_CONF" -N "node$i"
  fi
done

# wait until all nodes are idle
deadline=$(( $(date +%s) + TIMEOUT ))
while :; do
  st=$(sinfo -h -N -o '%N %t' 2>/dev/null || true)
  n_ok=$(echo "$st" | awk '$2=="idle"||$2=="mix"||$2=="alloc"' | wc -l)
  [ "$n_ok" -ge "$NODES" ] && break
  [ "$(date +%s)" -ge $deadline ] && { echo "timeout; sinfo: $st" >&2; tail -n 20 "$D"/log/slurmd-*.log >&2; exit 1; }
  # nodes left DOWN by an earlier run come back via ReturnToService=2; nudge anyway
  echo "$st" | awk '$2 ~ /down|drain|unk/ {print $1}' | while read -r n; do
    scontrol update nodename="$n" state=resume 2>/dev/null || true; done
  sleep 0.3
done
log "all $NODES slurmd idle"

# --- 5. optional slurmrestd ------------------------------------------------------------------
# Two instances, because SLURM_JWT=daemon (required for rest_auth/jwt) breaks rest_auth/local:
#  a) unix socket, rest_auth/local (peer uid of the socket); as root only with SLURMRESTD_SECURITY=disable_user_check
#  b) TCP 127.0.0.1:$REST_PORT, rest_auth/jwt (headers X-SLURM-USER-NAME / X-SLURM-USER-TOKEN from 'scontrol token'),
#     drops to user nobody after binding. Only openapi/v0.0.38 is loaded: the dbv0.0.38 plugin needs slurmdbd.
if [ "$REST" = 1 ] && command -v slurmrestd >/dev/null; then
  ( cd "$D" || exit 1; SLURMRESTD_SECURITY=disable_user_check \
      exec slurmrestd -f "$SLURM_CONF" -a rest_auth/local -s openapi/v0.0.38 "unix:$D/run/slurmrestd.sock" \
      >>"$D/log/slurmrestd-local.log" 2>&1 </dev/null ) &
  echo $! > "$D/run/slurmrestd-local.pid"
  if [ -n "$JWT_CONF" ]; then
    ( cd "$D" || exit 1; SLURM_JWT=daemon \
        exec slurmrestd -f "$SLURM_CONF" -u nobody -a rest_auth/jwt -s openapi/v0.0.38 "127.0.0.1:$REST_PORT" \
        >>"$D/log/slurmrestd-jwt.log" 2>&1 </dev/null ) &
    echo $! > "$D/run/slurmrestd-jwt.pid"
  fi
  for _ in $(seq 50); do
    curl -sf --unix-socket "$D/run/slurmrestd.sock" http://localhost/slurm/v0.0.38/ping >/dev/null 2>&1 && break; sleep 0.1; done
  curl -sf --unix-socket "$D/run/slurmrestd.sock" http://localhost/slurm/v0.0.38/ping >/dev/null \
    && log "slurmrestd (local auth) up: unix:$D/run/slurmrestd.sock (pid $(cat "$D/run/slurmrestd-local.pid"))" \
    || { log "slurmrestd (local) failed:"; tail -n 5 "$D/log/slurmrestd-local.log" >&2; }
  if [ -n "$JWT_CONF" ]; then
    tok=$(scontrol token lifespan=60 | sed 's/^SLURM_JWT=//')
    for _ in $(seq 50); do
      curl -sf -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $tok" "http://127.0.0.1:$REST_PORT/slurm/v0.0.38/ping" >/dev/null 2>&1 && break; sleep 0.1; done
    curl -sf -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $tok" "http://127.0.0.1:$REST_PORT/slurm/v0.0.38/ping" >/dev/null \
      && log "slurmrestd (jwt auth) up: http://127.0.0.1:$REST_PORT (pid $(cat "$D/run/slurmrestd-jwt.pid"))" \
      || { log "slurmrestd (jwt) failed:"; tail -n 5 "$D/log/slurmrestd-jwt.log" >&2; }
  fi
fi
echo "$PARAMS" > "$D/run/params"
sinfo -N -o '%N %t %c %m %G' >&2
echo "export SLURM_CONF=$SLURM_CONF"
