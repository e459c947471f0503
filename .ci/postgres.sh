# shellcheck shell=bash
# Starts a throwaway PostgreSQL cluster for the checkpoint store's tests and
# exports LOOM_TEST_POSTGRES_DSN. Source it (bash): .ci/run does so before
# its tests step; a developer runs `LOOM_START_POSTGRES=1 source .ci/postgres.sh`.
#
# It does nothing when LOOM_TEST_POSTGRES_DSN is already set, or unless
# CI=true or LOOM_START_POSTGRES=1. Otherwise it installs Debian's
# postgresql package when no server binaries are there, creates a cluster
# with initdb as the non-root "postgres" user in a temporary folder, starts
# it on a free port on 127.0.0.1, creates the database loom_test, and stops
# the cluster and removes the folder when the shell exits.

loom_pg_run() { # run a command as the postgres user
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

loom_pg_stop() {
  if [ -n "${LOOM_PG_DIR:-}" ] && [ -d "$LOOM_PG_DIR" ]; then
    loom_pg_run "$LOOM_PG_BIN/pg_ctl" -D "$LOOM_PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$LOOM_PG_DIR"
  fi
}

loom_pg_start() {
  if [ -n "${LOOM_TEST_POSTGRES_DSN:-}" ]; then
    echo "postgres: using LOOM_TEST_POSTGRES_DSN from the environment"
    return 0
  fi
  if [ "${CI:-}" != true ] && [ "${LOOM_START_POSTGRES:-}" != 1 ]; then
    echo "postgres: not started (set CI=true or LOOM_START_POSTGRES=1); its tests skip"
    return 0
  fi
  # (|| true: under .ci/run's pipefail a missing folder must not end the run.)
  LOOM_PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$LOOM_PG_BIN" ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    LOOM_PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  fi
  if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/postgresql --shell /bin/sh postgres
  fi
  LOOM_PG_DIR=$(mktemp -d /tmp/loom-pg.XXXXXX)
  [ "$(id -u)" = 0 ] && chown postgres: "$LOOM_PG_DIR"
  loom_pg_run "$LOOM_PG_BIN/initdb" -D "$LOOM_PG_DIR/data" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$LOOM_PG_DIR/initdb.log" 2>&1 ||
    { cat "$LOOM_PG_DIR/initdb.log"; return 1; }
  # Stop the cluster at exit, after whatever exit trap was set before.
  local prev
  prev=$(trap -p EXIT)
  if [ -n "$prev" ]; then
    eval "set -- $prev"
    trap "loom_pg_stop; $3" EXIT
  else
    trap loom_pg_stop EXIT
  fi
  local port tries
  for tries in 1 2 3 4 5 6 7 8 9 10; do
    port=$((20000 + RANDOM % 40000))
    # A port something already answers on is not free.
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi
    if loom_pg_run "$LOOM_PG_BIN/pg_ctl" -D "$LOOM_PG_DIR/data" -l "$LOOM_PG_DIR/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $LOOM_PG_DIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
      start >/dev/null; then
      loom_pg_run "$LOOM_PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U postgres loom_test
      export LOOM_TEST_POSTGRES_DSN="postgres://postgres@127.0.0.1:$port/loom_test?sslmode=disable"
      echo "postgres: $("$LOOM_PG_BIN/postgres" --version) on 127.0.0.1:$port (data in $LOOM_PG_DIR)"
      return 0
    fi
    tail -n 5 "$LOOM_PG_DIR/server.log" 2>/dev/null || true
  done
  echo "postgres: could not start a cluster after $tries tries"
  return 1
}

loom_pg_start
