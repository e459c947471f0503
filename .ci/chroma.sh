#!/usr/bin/env bash
# The real Chroma server for vector/chroma's tests. npm's chromadb CLI
# embeds the server through chromadb-js-bindings-linux-x64-gnu (pinned in
# .ci/chroma/package-lock.json). Those bindings need glibc 2.39 or later;
# where the system's is older (Debian 12 has 2.36), Debian 13's libc6 is
# fetched with `apt-get download` under a private apt configuration (the
# system's apt state is not touched), unpacked into the user cache
# directory once, and its loader runs Node for the server alone.
# Sourced by .ci/vector.sh: sets LOOM_TEST_CHROMA_URL and chroma_pid.

printf '\n=== %s\n' "Chroma (npm ci in .ci/chroma)"
npm ci --prefix .ci/chroma --no-audit --no-fund

chroma_cmd=(node)
# (Pipelines here read all their input: under pipefail a writer cut off
# by head would fail the script.)
glibc=$(getconf GNU_LIBC_VERSION | awk '{print $2}')
if [ "$(printf '%s\n2.39\n' "$glibc" | sort -V | sed -n 1p)" != "2.39" ]; then
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/loom-chroma/glibc"
  lib="$cache/usr/lib/x86_64-linux-gnu"
  if [ ! -x "$lib/ld-linux-x86-64.so.2" ]; then
    echo "glibc $glibc is older than the bindings need: fetching Debian 13's libc6 into $cache"
    apt_dir=$(mktemp -d)
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" >"$apt_dir/sources.list"
    touch "$apt_dir/status"
    apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/nonexistent
      -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::State::Status=$apt_dir/status" -o "Dir::Cache=$apt_dir/cache"
      -o APT::Sandbox::User=root)
    apt-get "${apt_opts[@]}" update -qq
    (cd "$apt_dir" && apt-get "${apt_opts[@]}" download libc6 >/dev/null)
    mkdir -p "$cache"
    dpkg-deb -x "$apt_dir"/libc6_*.deb "$cache"
    rm -rf "$apt_dir"
  fi
  chroma_cmd=("$lib/ld-linux-x86-64.so.2" --library-path "$lib" "$(command -v node)")
fi

chroma_port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
chroma_data=$(mktemp -d)
chroma_log="$chroma_data.log"
"${chroma_cmd[@]}" .ci/chroma/node_modules/chromadb/dist/cli.mjs run --path "$chroma_data" --host 127.0.0.1 --port "$chroma_port" >"$chroma_log" 2>&1 &
chroma_pid=$!
for _ in $(seq 1 120); do
  curl -sf "http://127.0.0.1:$chroma_port/api/v2/heartbeat" >/dev/null && break
  kill -0 "$chroma_pid" 2>/dev/null || { cat "$chroma_log"; echo "Chroma exited before listening"; exit 1; }
  sleep 0.5
done
curl -sf "http://127.0.0.1:$chroma_port/api/v2/heartbeat" >/dev/null || { cat "$chroma_log"; echo "Chroma did not listen within 60 s"; exit 1; }
export LOOM_TEST_CHROMA_URL="http://127.0.0.1:$chroma_port"
echo "Chroma listening on $LOOM_TEST_CHROMA_URL"
