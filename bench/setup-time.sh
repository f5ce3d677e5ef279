#!/usr/bin/env bash
# Times the README's set-up on a fresh clone (warm pnpm store, no node_modules, no dist):
#   1. `pnpm install`            — install + the root `prepare` build, what a new user waits for
#   2. `pnpm install` again      — what the README's test command does before `pnpm test`
#   3. `pnpm build` after touching one source file of @agentgov/core
# Usage: bench/setup-time.sh [git-ref ...]   (default HEAD; give two refs to compare in one run)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
refs=("$@")
[ ${#refs[@]} -gt 0 ] || refs=(HEAD)

seconds() { local s=$SECONDS; "$@" >"$log" 2>&1 || { tail -20 "$log"; exit 1; }; echo $((SECONDS - s)); }
for ref in "${refs[@]}"; do
  dir="$(mktemp -d)"
  log="$dir.log"
  git clone -q "$repo" "$dir"
  git -C "$dir" checkout -q "$ref"
  cd "$dir"
  load="$(cut -d' ' -f1 /proc/loadavg)"
  first=$(seconds pnpm install --frozen-lockfile)
  again=$(seconds pnpm install --frozen-lockfile)
  echo "// touched by bench/setup-time.sh" >> packages/core/src/index.ts
  one=$(seconds pnpm build)
  echo "$(git rev-parse --short HEAD) install+build ${first}s, test command's install ${again}s, after one core edit ${one}s (load ${load}, $(nproc) CPUs)"
  cd "$repo"
  rm -rf "$dir" "$log"
done
