#!/usr/bin/env bash
# Make Podman available beside Docker for the Podman integration suites, offline-first:
# - install Debian's podman when it is missing, and start its Docker-compatible API service as root on
#   a socket of its own (/run/intutic-podman/podman.sock), logging to /var/log/intutic/podman.log;
#   dockerd (scripts/setup/engine.sh) keeps running on its socket, and both run at once;
# - copy the offline base image `local/debian:bookworm` from Docker's storage into Podman's (no
#   container registry is reachable here), under the same name, so INTUTIC_SANDBOX_BASE_IMAGE works
#   for both engines.
# Prints the socket's address (unix://…) on stdout. Idempotent: what is already there is left as it is.
# Needs Docker running with the base image: run scripts/setup/engine.sh first.
set -euo pipefail

log() { printf '[podman] %s\n' "$*" >&2; }

# Not Podman's own /run/podman/podman.sock: the engine check tries that one whenever DOCKER_HOST's
# engine does not answer, so Podman would stand in for Docker in the suites that stop dockerd or expect
# no engine to answer. Here it answers only to whoever names it.
SOCKET=/run/intutic-podman/podman.sock
PID_FILE=/run/intutic-podman/service.pid
LOG=/var/log/intutic/podman.log
BASE_IMAGE="${INTUTIC_TEST_BASE_IMAGE:-local/debian:bookworm}"
LIMITS_CONF=/etc/containers/containers.conf.d/intutic-ulimits.conf

service_up() { curl -sf --max-time 3 --unix-socket "$SOCKET" http://podman/_ping >/dev/null 2>&1; }

if ! command -v podman >/dev/null 2>&1; then
  log "installing podman from Debian's packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  # netavark named, or apt takes the first alternative of containers-common's network stack (the
  # deprecated CNI plugins); the recommends are rootless tooling (slirp4netns, fuse-overlayfs, uidmap)
  # that a rootful service does not use.
  apt-get install -y -qq --no-install-recommends podman netavark iptables curl >/dev/null
fi

# Podman gives every container it creates the RLIMIT_NOFILE and RLIMIT_NPROC 1048576 (Docker leaves
# them as the daemon's own), and the container fails to start ("error setting rlimit type 7: operation
# not permitted") where the runtime cannot raise a hard limit: this machine holds no CAP_SYS_RESOURCE
# and caps open files at 20000. Podman also sets its own RLIMIT_NPROC to kernel.pid_max when it starts
# (32768 here, seen with strace), so a container's nproc above that fails the same way (type 6).
# Default every container to limits that can be set here.
nofile=$(ulimit -Hn)
if [ "$nofile" = unlimited ]; then nofile=$(cat /proc/sys/fs/nr_open); fi
nproc=$(ulimit -Hu)
pid_max=$(cat /proc/sys/kernel/pid_max)
if [ "$nproc" = unlimited ] || [ "$nproc" -gt "$pid_max" ]; then nproc=$pid_max; fi
limits=$(printf '[containers]\ndefault_ulimits = ["nofile=%s:%s", "nproc=%s:%s"]' "$nofile" "$nofile" "$nproc" "$nproc")
if [ "$(cat "$LIMITS_CONF" 2>/dev/null)" != "$limits" ]; then
  mkdir -p "$(dirname "$LIMITS_CONF")"
  printf '%s\n' "$limits" >"$LIMITS_CONF"
  # A service this script started earlier read the old limits: stop it (by its pid) to start it again.
  if [ -s "$PID_FILE" ] && kill "$(cat "$PID_FILE")" 2>/dev/null; then
    log "container limits changed; restarting the API service"
    for _ in $(seq 1 20); do service_up || break; sleep 0.5; done
  fi
fi

# The service hands its working directory to every container's conmon, which fails without it ("write
# child: broken pipe" on every start, while the ping still answers): a service started from a checkout
# that was removed since (a CI clone) is stopped and started again, from /.
if [ -s "$PID_FILE" ] && [[ "$(readlink "/proc/$(cat "$PID_FILE")/cwd" 2>/dev/null)" == *" (deleted)" ]]; then
  log "the API service's working directory was removed; restarting it"
  kill "$(cat "$PID_FILE")" 2>/dev/null || true
  for _ in $(seq 1 20); do service_up || break; sleep 0.5; done
fi

if ! service_up; then
  log "starting podman's Docker-compatible API service on $SOCKET"
  mkdir -p /var/log/intutic "$(dirname "$SOCKET")"
  rm -f "$SOCKET"
  (cd / && exec nohup podman system service --time=0 "unix://$SOCKET" >>"$LOG" 2>&1) &
  echo $! >"$PID_FILE"
  for _ in $(seq 1 30); do service_up && break; sleep 1; done
  service_up || { log "podman's service did not come up; see $LOG"; tail -n 30 "$LOG" >&2; exit 1; }
fi
log "engine: podman $(podman version --format '{{.Server.Version}}' 2>/dev/null || podman --version)"

# The repetition's proxy listens on the default network's gateway before its sandbox starts (as it
# does on Docker's docker0), but netavark creates the bridge with the first container on it and deletes
# it with the last, so between runs the gateway address is on no interface. One end of a veth pair
# enslaved to the bridge keeps it: netavark deletes a bridge only when no port is left on it, and reuses
# one that exists.
read -r bridge gateway subnet < <(podman network inspect podman --format '{{.NetworkInterface}} {{range .Subnets}}{{.Gateway}} {{.Subnet}}{{end}}')
ip link show "$bridge" >/dev/null 2>&1 || ip link add "$bridge" type bridge
ip -4 addr show dev "$bridge" | grep -q "inet $gateway/" || ip addr add "$gateway/${subnet#*/}" dev "$bridge"
ip link show intutic-pin0 >/dev/null 2>&1 || ip link add intutic-pin0 type veth peer name intutic-pin1
ip link set intutic-pin0 master "$bridge"
ip link set intutic-pin0 up
ip link set "$bridge" up
log "bridge: $bridge at $gateway, kept up"

# The copy is reused while it is the same image as Docker's (the same id in both stores).
docker_id=$(docker image inspect --format '{{.Id}}' "$BASE_IMAGE" 2>/dev/null) || {
  log "$BASE_IMAGE is not in Docker; run scripts/setup/engine.sh first"
  exit 1
}
podman_id=$(podman image inspect --format '{{.Id}}' "$BASE_IMAGE" 2>/dev/null || true)
if [ "sha256:$podman_id" != "$docker_id" ] && [ "$podman_id" != "$docker_id" ]; then
  log "copying $BASE_IMAGE from Docker into Podman's storage"
  podman pull -q "docker-daemon:$BASE_IMAGE" >/dev/null
fi
# The proof that Podman can start a container here, not just answer (the limits above, the runtime).
podman run --rm --network none "$BASE_IMAGE" true || { log "podman cannot start a container from $BASE_IMAGE; see $LOG"; exit 1; }
log "base image: $BASE_IMAGE"

echo "unix://$SOCKET"
