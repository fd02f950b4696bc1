#!/usr/bin/env bash
# Runs the typed client example (examples/list-leads.ts) against a freshly started service: the
# built app (`npm run build` first) on a throwaway embedded database and a free port, with the demo
# tenant's key it prints at first start. Also checks that examples/api-types.ts is the one
# `npm run client:generate` makes from openapi.json. Used by CI (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f dist/main.js ]; then
  echo "dist/main.js is missing: run npm run build first" >&2
  exit 1
fi

work="$(mktemp -d)"
server=""
cleanup() {
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
    kill "$server"
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

npx --no-install openapi-typescript openapi.json --enum-values -o "$work/api-types.ts" >/dev/null
if ! diff -q examples/api-types.ts "$work/api-types.ts" >/dev/null; then
  echo "examples/api-types.ts is not the one openapi.json gives: run npm run client:generate" >&2
  exit 1
fi

port="$(node -e "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })")"
base="http://127.0.0.1:$port"
env -u NODE_ENV -u DATABASE_URL -u REDIS_URL DATA_DIR="$work/data" PORT="$port" LOG_LEVEL=warn DEMO_DATA=true \
  node dist/main.js >"$work/server.log" 2>&1 &
server=$!

key=""
for _ in $(seq 1 120); do
  if ! kill -0 "$server" 2>/dev/null; then
    echo "The service stopped during start-up:" >&2
    cat "$work/server.log" >&2
    exit 1
  fi
  if curl -fsS "$base/health/ready" >/dev/null 2>&1; then
    key="$(grep -Eo 'svc_sk_[0-9A-Za-z]+' "$work/server.log" | head -n 1 || true)"
    [ -n "$key" ] && break
  fi
  sleep 0.5
done
if [ -z "$key" ]; then
  echo "The service did not become ready with a demo key within 60 s:" >&2
  cat "$work/server.log" >&2
  exit 1
fi

echo "Service ready on $base; running examples/list-leads.ts with pages of 2 leads"
BASE_URL="$base" API_KEY="$key" PAGE_SIZE=2 npx --no-install tsx examples/list-leads.ts
