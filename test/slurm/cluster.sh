#!/usr/bin/env bash
# A private single-node Slurm cluster for `make test-slurm` (scenarios/test_slurm.c):
# munged, slurmctld and slurmd of Debian's slurm-wlm and munge packages, all
# state, logs, sockets and the config under DIR, ports picked free on
# 127.0.0.1 (never the default 6817/6818), no accounting (sacct says so; the
# driver then reads squeue and the tasks' status files).  Needs root (the
# daemons run as SlurmUser=root).
#
#   test/slurm/cluster.sh check        exit 0 when it can run here, else 1 and why
#   test/slurm/cluster.sh start DIR    start; prints "SLURM_CONF=DIR/slurm.conf"
#   test/slurm/cluster.sh stop DIR     cancel every job, stop the daemons, remove DIR
set -u
cmd=${1:-}
dir=${2:-}

check() {
  [ "$(id -u)" = 0 ] || { echo "not root (the daemons run as SlurmUser=root)"; return 1; }
  for b in munged mungekey slurmctld slurmd sbatch squeue scancel sinfo; do
    command -v "$b" >/dev/null 2>&1 || { echo "$b not found (scripts/deps.sh slurm installs slurm-wlm and munge)"; return 1; }
  done
  return 0
}

# A TCP port nobody listens on (from /proc/net/tcp*), in 20000-59999.
listening() {
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | while read -r _ local _ st _; do
    [ "$st" = 0A ] && printf '%d\n' "0x${local##*:}"
  done
}
free_port() {
  local used p
  used=" $(listening | tr '\n' ' ') $* "
  for _ in $(seq 1 200); do
    p=$((20000 + RANDOM % 40000))
    case "$used" in *" $p "*) continue ;; esac
    echo "$p"
    return 0
  done
  return 1
}

stop() {
  [ -n "$dir" ] && [ -f "$dir/slurm.conf" ] || { rm -rf "${dir:?}"; return 0; }
  export SLURM_CONF="$dir/slurm.conf"
  scancel --full --user="$(id -un)" >/dev/null 2>&1
  for _ in $(seq 1 50); do
    [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
    sleep 0.2
  done
  for p in slurmd slurmctld munged; do
    [ -f "$dir/$p.pid" ] || continue
    pid=$(cat "$dir/$p.pid")
    kill "$pid" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  rm -rf "$dir"
}

start() {
  why=$(check) || { echo "cannot start: $why" >&2; exit 1; }
  [ -n "$dir" ] || { echo "usage: $0 start DIR" >&2; exit 2; }
  mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log" && chmod 700 "$dir/munge" || exit 1
  dir=$(cd "$dir" && pwd)
  mungekey -c -k "$dir/munge/key" >/dev/null 2>&1 || { echo "mungekey failed" >&2; exit 1; }
  munged -f --socket="$dir/munge/sock" --key-file="$dir/munge/key" --pid-file="$dir/munged.pid" \
    --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" || { echo "munged failed:" >&2; cat "$dir/log/munged.log" >&2; exit 1; }
  p1=$(free_port) && p2=$(free_port "$p1") && p3=$(free_port "$p1" "$p2") || { echo "no free port" >&2; exit 1; }
  cat > "$dir/slurm.conf" <<CONF
ClusterName=gapscopetest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$p1
SlurmdPort=$p2
SrunPortRange=$p3-$((p3 + 20))
AuthType=auth/munge
AuthInfo=socket=$dir/munge/sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
MinJobAge=600
KillWait=15
NodeName=gsnode NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=$(nproc) State=UNKNOWN
PartitionName=gstest Nodes=gsnode Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -i || { echo "slurmctld failed:" >&2; tail -20 "$dir/log/slurmctld.log" >&2; stop; exit 1; }
  slurmd -N gsnode || { echo "slurmd failed:" >&2; tail -20 "$dir/log/slurmd.log" >&2; stop; exit 1; }
  for _ in $(seq 1 150); do
    case "$(sinfo -h -n gsnode -o %t 2>/dev/null)" in idle*) echo "SLURM_CONF=$SLURM_CONF"; return 0 ;; esac
    sleep 0.2
  done
  echo "the node never came up idle:" >&2
  sinfo >&2
  tail -20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2
  stop
  exit 1
}

case "$cmd" in
  check) check ;;
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 check | start DIR | stop DIR" >&2; exit 2 ;;
esac
