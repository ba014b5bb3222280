#!/usr/bin/env bash
# Make a container engine available for the integration tests, offline-first:
# - install Debian's docker.io when no dockerd exists, and start dockerd when no engine answers;
# - build the base image `local/debian:bookworm` with debootstrap from apt's own mirror when it is
#   missing (no container registry is reachable here), so the sandbox images can be built FROM it.
# Idempotent: a machine that already has both is left as it is.
set -euo pipefail

log() { printf '[engine] %s\n' "$*" >&2; }

engine_up() { docker info >/dev/null 2>&1; }

if ! engine_up; then
  if ! command -v dockerd >/dev/null 2>&1; then
    log "installing docker.io from Debian's packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq docker.io iptables >/dev/null
  fi
  log "starting dockerd"
  mkdir -p /var/log/intutic
  # From /: the daemon outlives this script, and a working directory in a checkout that is later removed
  # (a CI clone) would stay held, as a deleted directory, for the daemon's whole life.
  (cd / && exec nohup dockerd --host unix:///var/run/docker.sock >/var/log/intutic/dockerd.log 2>&1) &
  for _ in $(seq 1 60); do engine_up && break; sleep 1; done
  engine_up || { log "dockerd did not come up; see /var/log/intutic/dockerd.log"; tail -n 30 /var/log/intutic/dockerd.log >&2; exit 1; }
fi
log "engine: $(docker version --format '{{.Server.Version}}' 2>/dev/null)"

BASE_IMAGE="${INTUTIC_TEST_BASE_IMAGE:-local/debian:bookworm}"
if ! docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
  command -v debootstrap >/dev/null 2>&1 || { export DEBIAN_FRONTEND=noninteractive; apt-get update -qq >/dev/null; apt-get install -y -qq debootstrap >/dev/null; }
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$mirror" ] || mirror=$(awk '/^deb / {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  [ -n "$mirror" ] || { log "no Debian mirror found in apt's sources"; exit 1; }
  dir=$(mktemp -d)
  log "building $BASE_IMAGE with debootstrap (about a minute)"
  debootstrap --variant=minbase bookworm "$dir" "$mirror" >/tmp/intutic-debootstrap.log 2>&1 || { tail -n 20 /tmp/intutic-debootstrap.log >&2; exit 1; }
  # Keep apt pointed at the same mirror inside the image.
  echo "deb $mirror bookworm main" >"$dir/etc/apt/sources.list"
  tar -C "$dir" -c . | docker import - "$BASE_IMAGE" >/dev/null
  rm -rf "$dir"
fi
log "base image: $BASE_IMAGE"
