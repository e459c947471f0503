#!/usr/bin/env bash
# The real Weaviate server for vector/weaviate's tests and vector/bench.
# weaviate-server is built with `go install` of a pinned tag into the user
# cache directory once (4-10 minutes cold on two cores; the binary is
# never committed) and rebuilt when WEAVIATE_VERSION changes: the build
# info embedded in the binary names the module version it was built from.
# Newer tags than v1.39.3 need an sroar version the module proxy refuses.
#
# Sourced by .ci/vector.sh, in two steps so the cold build can overlap
# other work:
#   weaviate_build_start  starts the build in the background if needed
#   weaviate_start        waits for it, starts the server on free
#                         127.0.0.1 ports (HTTP, gRPC, gossip, data, Raft,
#                         Raft RPC), anonymous access, no vectorizer, data in
#                         a temporary directory, telemetry and the profiling
#                         listener off; waits for /v1/.well-known/ready and
#                         exports LOOM_TEST_WEAVIATE_URL (REST) and
#                         LOOM_TEST_WEAVIATE_GRPC (host:port of its gRPC API)
#   weaviate_stop         kills that server (only it) and removes its data
# Sourcing defines the functions and runs nothing.

WEAVIATE_VERSION=v1.39.3
weaviate_cache="${LOOM_WEAVIATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/loom-weaviate/bin}"
weaviate_bin="$weaviate_cache/weaviate-server"
weaviate_build_pid=""
weaviate_build_log=""
weaviate_build_dir=""
weaviate_pid=""
weaviate_data=""

# weaviate_built reports whether the cached binary was built from
# WEAVIATE_VERSION (go version -m reads the module version it records).
weaviate_built() {
  [ -x "$weaviate_bin" ] || return 1
  local info
  info=$(go version -m "$weaviate_bin" 2>/dev/null) || return 1
  printf '%s\n' "$info" | awk '$1 == "mod" && $2 == "github.com/weaviate/weaviate" {print $3}' | grep -qx "$WEAVIATE_VERSION"
}

weaviate_build_start() {
  printf '\n=== %s\n' "Weaviate $WEAVIATE_VERSION (weaviate-server) in $weaviate_cache"
  if weaviate_built; then
    echo "cached build of $WEAVIATE_VERSION found"
    return 0
  fi
  mkdir -p "$weaviate_cache"
  weaviate_build_log=$(mktemp)
  echo "building in the background (log $weaviate_build_log)"
  # A build into a temporary GOBIN, moved into place only when it is
  # complete, so an interrupted build never leaves a binary that looks good.
  weaviate_build_dir=$(mktemp -d "$weaviate_cache/.build.XXXXXX")
  # setsid: the build is a process group of its own, which weaviate_stop
  # can end whole (go and its compilers) without touching anything else.
  GOFLAGS= GOBIN="$weaviate_build_dir" WEAVIATE_VERSION="$WEAVIATE_VERSION" setsid bash -c '
    go install "github.com/weaviate/weaviate/cmd/weaviate-server@$WEAVIATE_VERSION" &&
      mv -f "$GOBIN/weaviate-server" "$0"
    rc=$?
    rm -rf "$GOBIN"
    exit $rc' "$weaviate_bin" >"$weaviate_build_log" 2>&1 &
  weaviate_build_pid=$!
}

weaviate_start() {
  if [ -n "$weaviate_build_pid" ]; then
    printf '\n=== %s\n' "waiting for the Weaviate build"
    if ! wait "$weaviate_build_pid"; then
      cat "$weaviate_build_log"; echo "building weaviate-server $WEAVIATE_VERSION failed"; return 1
    fi
    weaviate_build_pid=""
    rm -f "$weaviate_build_log"
  fi
  weaviate_built || { echo "$weaviate_bin is not a build of $WEAVIATE_VERSION"; return 1; }
  printf '\n=== %s\n' "Weaviate $WEAVIATE_VERSION on free 127.0.0.1 ports"
  # A port found free can be taken by another process before the server
  # binds it (parallel runs pick ports the same way): then the server is
  # started again on other ports.
  local attempt rc
  for attempt in 1 2 3; do
    rc=0
    weaviate_launch || rc=$?
    [ "$rc" -eq 2 ] || return "$rc"
    echo "a port was taken before Weaviate bound it (attempt $attempt): trying other ports"
  done
  return 1
}

# weaviate_launch starts the server once; it returns 2 when one of its
# ports was taken by another process, 1 on any other failure.
weaviate_launch() {
  # Six distinct free ports, all held open at once so no two are the same.
  local ports
  ports=$(node -e '
    const net = require("net"); const s = [];
    let left = 6;
    for (let i = 0; i < 6; i++) {
      const l = net.createServer().listen(0, "127.0.0.1", () => {
        if (--left === 0) { console.log(s.map(x => x.address().port).join(" ")); s.forEach(x => x.close()); }
      });
      s.push(l);
    }')
  local http_port grpc_port gossip_port data_port raft_port raft_rpc_port
  read -r http_port grpc_port gossip_port data_port raft_port raft_rpc_port <<<"$ports"

  weaviate_data=$(mktemp -d)
  local log="$weaviate_data.log"
  env PERSISTENCE_DATA_PATH="$weaviate_data" \
    AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true \
    DEFAULT_VECTORIZER_MODULE=none \
    DISABLE_TELEMETRY=true \
    GO_PROFILING_DISABLE=true \
    PROMETHEUS_MONITORING_ENABLED=false \
    CLUSTER_HOSTNAME=loom-ci \
    CLUSTER_BIND_ADDR=127.0.0.1 \
    CLUSTER_ADVERTISE_ADDR=127.0.0.1 \
    CLUSTER_GOSSIP_BIND_PORT="$gossip_port" \
    CLUSTER_DATA_BIND_PORT="$data_port" \
    RAFT_PORT="$raft_port" \
    RAFT_INTERNAL_RPC_PORT="$raft_rpc_port" \
    RAFT_BOOTSTRAP_EXPECT=1 \
    GRPC_PORT="$grpc_port" \
    LOG_LEVEL=warning \
    "$weaviate_bin" --scheme http --host 127.0.0.1 --port "$http_port" >"$log" 2>&1 &
  weaviate_pid=$!
  local url="http://127.0.0.1:$http_port" ready=""
  for _ in $(seq 1 240); do
    if curl -sf "$url/v1/.well-known/ready" >/dev/null; then ready=1; break; fi
    kill -0 "$weaviate_pid" 2>/dev/null || break
    sleep 0.5
  done
  # Ready, and every port its own: another process may hold one it was
  # given (the server logs the failed bind of some listeners and goes on).
  local p clash=""
  if [ -n "$ready" ] && command -v ss >/dev/null 2>&1; then
    local listeners
    for p in $ports; do
      # (Read whole, not piped into grep -q: under pipefail a writer cut
      # off early would fail the check.)
      listeners=$(ss -ltnpH "( sport = :$p )")
      [[ "$listeners" == *"pid=$weaviate_pid,"* ]] || clash=1
    done
  fi
  if [ -z "$ready" ] || [ -n "$clash" ]; then
    local taken=""
    if [ -n "$clash" ] || grep -q "address already in use" "$log"; then taken=1; fi
    [ -n "$taken" ] || cat "$log"
    weaviate_stop
    if [ -n "$taken" ]; then return 2; fi
    echo "Weaviate was not ready within 120 s, or exited"
    return 1
  fi
  export LOOM_TEST_WEAVIATE_URL="$url"
  export LOOM_TEST_WEAVIATE_GRPC="127.0.0.1:$grpc_port"
  echo "Weaviate $(curl -sf "$url/v1/meta" | grep -o '"version":"[^"]*"') ready on $LOOM_TEST_WEAVIATE_URL (gRPC $grpc_port)"
}

weaviate_stop() {
  if [ -n "$weaviate_build_pid" ]; then
    # An unfinished build: its process group, and its partial output.
    kill -- "-$weaviate_build_pid" 2>/dev/null || true
    wait "$weaviate_build_pid" 2>/dev/null || true
    weaviate_build_pid=""
    rm -rf "$weaviate_build_dir" "$weaviate_build_log"
  fi
  if [ -n "$weaviate_pid" ]; then
    kill "$weaviate_pid" 2>/dev/null || true
    # It stops within its graceful timeout; after that it is killed outright.
    for _ in $(seq 1 40); do kill -0 "$weaviate_pid" 2>/dev/null || break; sleep 0.5; done
    { kill -9 "$weaviate_pid"; wait "$weaviate_pid"; } 2>/dev/null || true
    weaviate_pid=""
  fi
  if [ -n "$weaviate_data" ]; then rm -rf "$weaviate_data" "$weaviate_data.log"; weaviate_data=""; fi
}
