#!/usr/bin/env bash
# make bench (part): N simulated boards at 1 Hz (FleetBench, one process, QoS 1) → one mosquitto → lodestar fleet →
# PostgreSQL 15 + PostGIS, all on this machine. Per N: sustained messages/s, publish → row committed latency
# p50/p99 (measured by lodestar fleet from each fix's publish time), rows lost, CPU seconds and peak RSS per process.
# Not a pass/fail test. FLEET_BENCH_BOARDS="1000 2000 4000" FLEET_BENCH_SECONDS=30 override the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
REL=.build/release
PGBIN=/usr/lib/postgresql/15/bin
BOARDS_LIST=${FLEET_BENCH_BOARDS:-"1000 2000 4000 8000"}
RUN_SECONDS=${FLEET_BENCH_SECONDS:-30}
work=$(mktemp -d /tmp/lodestar-fleet-bench.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -f "$work/pg/data/postmaster.pid" ] && kill -INT "$(head -1 "$work/pg/data/postmaster.pid")" 2>/dev/null || true
  sleep 1; rm -rf "$work"
}
trap cleanup EXIT
freeport() { python3 -c 'import socket,random
while True:
  p=random.randint(10000,30000); s=socket.socket()
  try: s.bind(("127.0.0.1",p)); s.close(); print(p); break
  except OSError: pass'; }
asdb() { if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi; }

# PostgreSQL in a temporary data directory (durable commits: fsync and synchronous_commit on, the defaults).
mkdir -p "$work/pg"; [ "$(id -u)" = 0 ] && chown nobody "$work/pg"
pgport=$(freeport)
asdb $PGBIN/initdb -D "$work/pg/data" -U fleet --auth=trust -E UTF8 >/dev/null
asdb $PGBIN/pg_ctl -D "$work/pg/data" -l "$work/pg/log" -w start -o "-p $pgport -k $work/pg -c listen_addresses=127.0.0.1" >/dev/null
psql -h 127.0.0.1 -p "$pgport" -U fleet -d postgres -Atqc "CREATE DATABASE fleet"
conninfo="host=127.0.0.1 port=$pgport dbname=fleet user=fleet"
mqport=$(freeport)
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\nuser root\nmax_queued_messages 1000000\nmax_inflight_messages 0\n' "$mqport" > "$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" 2>"$work/mosquitto.log" & mosq=$!; pids+=("$mosq")
sleep 0.5

cpu() { awk '{print $14+$15}' "/proc/$1/stat" 2>/dev/null || echo 0; }      # clock ticks
hwm() { awk '/VmHWM/{print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }  # kB
pgcpu() { local t=0; for p in $(pgrep -u "$(id -u nobody 2>/dev/null || id -u)" -f postgres); do t=$((t + $(cpu "$p"))); done; echo $t; }
hz=$(getconf CLK_TCK)

printf '%-7s %9s %9s %8s %8s %8s %11s %6s | %-22s %-22s %-22s %-12s\n' boards sent rows msgs/s p50_ms p99_ms recv_p50/99 lost \
  "fleet cpu%/rssMB" "mosquitto cpu%/rssMB" "publisher cpu%/rssMB" "postgres cpu%"
for n in $BOARDS_LIST; do
  psql -h 127.0.0.1 -p "$pgport" -U fleet -d fleet -Atqc "TRUNCATE positions, last_positions, region_events" 2>/dev/null || true
  $REL/lodestar-fleet --mqtt "mqtt://127.0.0.1:$mqport/bench" --database "$conninfo" --client-id "bench-$n" --quiet \
    > /dev/null 2> "$work/fleet-$n.err" & fleet=$!; pids+=("$fleet")
  for _ in $(seq 100); do grep -q connected "$work/fleet-$n.err" 2>/dev/null && break; sleep 0.1; done
  sleep 0.5
  f0=$(cpu "$fleet"); m0=$(cpu "$mosq"); p0=$(pgcpu); t0=$(date +%s.%N)
  /usr/bin/time -f "%U %S %M" -o "$work/pub-$n.time" $REL/FleetBench --url "mqtt://127.0.0.1:$mqport/bench" --boards "$n" \
    --rate 1 --seconds "$RUN_SECONDS" --connections 10 > "$work/pub-$n.json"
  sent=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sent"])' "$work/pub-$n.json")
  rows=0
  for _ in $(seq 300); do
    rows=$(psql -h 127.0.0.1 -p "$pgport" -U fleet -d fleet -Atqc "SELECT count(*) FROM positions" 2>/dev/null || echo 0)
    [ "$rows" -ge "$sent" ] && break; sleep 0.1
  done
  t1=$(date +%s.%N); f1=$(cpu "$fleet"); m1=$(cpu "$mosq"); p1=$(pgcpu)
  fr=$(hwm "$fleet"); mr=$(hwm "$mosq")
  kill -INT "$fleet"; wait "$fleet" 2>/dev/null || true
  summary=$(grep '^lodestar fleet: {' "$work/fleet-$n.err" | tail -1 | sed 's/^lodestar fleet: //')
  read -r p50 p99 r50 r99 <<<"$(python3 -c 'import json,sys; s=json.loads(sys.argv[1]); l=s.get("fixTimeToCommitMs",{}); r=s.get("receiveToCommitMs",{}); print(l.get("p50","-"), l.get("p99","-"), r.get("p50","-"), r.get("p99","-"))' "$summary")"
  read -r pu ps pm < "$work/pub-$n.time"
  wall=$(python3 -c "print($t1-$t0)")
  rate=$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["messagesPerSecond"]))' "$work/pub-$n.json")
  pct() { python3 -c "print(round(100*$1/$hz/$wall))"; }
  printf '%-7s %9s %9s %8s %8s %8s %11s %6s | %-22s %-22s %-22s %-12s\n' "$n" "$sent" "$rows" "$rate" "$p50" "$p99" "$r50/$r99" "$((sent - rows))" \
    "$(pct $((f1 - f0)))% / $((fr / 1024))" "$(pct $((m1 - m0)))% / $((mr / 1024))" \
    "$(python3 -c "print(round(100*($pu+$ps)/$wall))")% / $((pm / 1024))" "$(pct $((p1 - p0)))%"
done
echo "(p50/p99: publish → row committed, ms, from each fix's publish time; recv: fleet receive → commit;"
echo " cpu% = CPU time / wall time of the run, 100% = one core; rss = peak; machine: $(nproc) cores, others' builds may run alongside)"
