#!/usr/bin/env bash
# What the integration and end-to-end suites need on a machine that may be new, for .ci/run (which
# runs this in the background while the checks that need none of it run):
# - Debian packages some suites use (Chromium for the HTML report, xmllint for the JUnit XSD,
#   docker-compose for the compose story when no `docker compose` plugin is there);
# - Redis on 127.0.0.1:6379 (this machine kind starts one; started here when it does not answer);
# - a container engine and the offline base image (scripts/setup/engine.sh), and rootful Podman beside
#   it (scripts/setup/podman.sh);
# - the real agent binaries the end-to-end suites drive offline (scripts/setup/agents.sh), fetched
#   while the engine is installed;
# - every image the suites use, built once here so parallel suites never race to build the same tags:
#   the agents' images through Docker and the sandbox images through Podman, side by side.
# Needs `npm ci` done (the CLI builds the Podman images). Each line it prints starts with the second it
# was printed at, counted from its start, so .ci/run's log says where the setup's time went.
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)
step() { printf '[setup %ss] %s\n' "$(( $(date +%s) - started ))" "$*"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Fetched from the registry while apt and the engine are busy; waited for before the images need them.
bash scripts/setup/agents.sh >"$work/agents.log" 2>&1 &
agents=$!

step "Debian packages"
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v xmllint >/dev/null 2>&1 || need+=(libxml2-utils)
docker compose version >/dev/null 2>&1 || command -v docker-compose >/dev/null 2>&1 || need+=(docker-compose)
if [ "${#need[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq "${need[@]}" >/dev/null
fi

step "Redis"
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
fi

step "container engine and the offline base image"
bash scripts/setup/engine.sh

step "agents"
wait "$agents" || { cat "$work/agents.log"; exit 1; }
cat "$work/agents.log"

# The offline base image and this machine's CA bundle: the same settings the tests use (sandboxBuildEnv).
export INTUTIC_SANDBOX_BASE_IMAGE=local/debian:bookworm
export INTUTIC_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt

step "the agents' images and the compose stand-ins through Docker, beside Podman and its sandbox images"
(npx tsx examples/agent-sandbox/build.ts --codex --gemini && bash scripts/setup/compose-images.sh) >"$work/docker-images.log" 2>&1 &
docker_images=$!
# Podman's API service runs for the rest of the machine's life (.ci/run's leftovers snapshot is taken after).
podman_host=$(bash scripts/setup/podman.sh)
version=$(node apps/cli/bin/intutic.mjs --version)
mkdir "$work/project"
for image in "intutic/sandbox:$version" "intutic/sandbox:$version-node"; do
  (cd "$work/project" && DOCKER_HOST="$podman_host" node "$OLDPWD/apps/cli/bin/intutic.mjs" exec --sandbox --image "$image" true)
done
step "Podman's images built; waiting for Docker's"
wait "$docker_images" || { cat "$work/docker-images.log"; exit 1; }
cat "$work/docker-images.log"
step "done"
