#!/bin/sh
# bench/scaling-replica.sh: a private PostgreSQL primary and a streaming standby (its own data
# directories and ports, 55432/55433, nothing shared touched), then bench/scaling-replica.ts
# against them; both stopped and removed afterwards. Needs the PostgreSQL server binaries
# (initdb, pg_ctl, pg_basebackup) on PATH; run as root it runs them as the `postgres` user.
set -eu
cd "$(dirname "$0")/.."
DIR=$(mktemp -d /tmp/agentgov-replica-XXXXXX)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$DIR"
cleanup() {
  as_pg pg_ctl -D "$DIR/standby" -m fast stop >/dev/null 2>&1 || true
  as_pg pg_ctl -D "$DIR/primary" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
as_pg initdb -D "$DIR/primary" -U postgres --auth=trust >/dev/null
printf "listen_addresses = '127.0.0.1'\nport = 55432\nwal_level = replica\nunix_socket_directories = '%s'\n" "$DIR" >>"$DIR/primary/postgresql.conf"
echo "host replication postgres 127.0.0.1/32 trust" >>"$DIR/primary/pg_hba.conf"
as_pg pg_ctl -D "$DIR/primary" -l "$DIR/primary.log" -w start >/dev/null
as_pg pg_basebackup -h 127.0.0.1 -p 55432 -U postgres -D "$DIR/standby" -R -X stream -c fast
sed -i 's/^port = 55432/port = 55433/' "$DIR/standby/postgresql.conf"
as_pg pg_ctl -D "$DIR/standby" -l "$DIR/standby.log" -w start >/dev/null
BENCH_PRIMARY_URL=postgres://postgres@127.0.0.1:55432/postgres \
BENCH_REPLICA_URL=postgres://postgres@127.0.0.1:55433/postgres \
  pnpm -s tsx bench/scaling-replica.ts
