#!/bin/bash
# intutic sandbox entrypoint (PID 1, root with a few capabilities). In order: apply the egress firewall
# (FAIL CLOSED: exit 86 rather than run open), trust the run's CA, mark the sandbox and look up the
# agent user; then read the env block from stdin, give the agent user its home and write access to
# /work, seal /work when governance is mounted in it, drop every capability, set no-new-privs and run
# the command as the unprivileged user with cwd /work and stdin from /dev/null. Nothing before the env
# block touches /work: a container started ahead of its turn (the runner holds verify's while the agent
# runs on the same workspace) has its own setup done by then, and the workspace's only once it is its turn.
# Exit codes of its own: 86 firewall, 87 env block, 88 setup (the command's own code otherwise).
# Output: the container's stdout and stderr are the command's alone once it runs, but for the exit
# trailer at the end of stdout (exit-trailer.ts), which the caller takes out. Before that, only a
# failure of setup is said (one `intutic-sandbox: ` line); after it, and from the moment a stop is
# asked for, the entrypoint's own stderr is /dev/null, so no message of ours and no notice of bash's
# ("line N: PID Killed  ( for i in … )", printed by the shell that reaps a job a signal killed)
# reaches the agent's output.
set -u
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

EXIT_FIREWALL=86
EXIT_ENV=87
EXIT_SETUP=88
RUN_CA=/etc/intutic/run-ca.crt
BUNDLE=/etc/ssl/certs/ca-certificates.crt
SANDBOX_MARKER=/run/intutic/sandbox
GATES_ENV=/run/intutic/gates.env
# The gate settings the runner passes (libs/gates/src/managed.ts MANAGED_ENV_KEYS, HOME aside).
GATES_ENV_KEYS=" INTUTIC_CHAOS_PLAN INTUTIC_CHAOS_EVENTS INTUTIC_SNAPSHOT_RULES INTUTIC_APPROVED_BYPASSES INTUTIC_POLICY_REQUIRED "

die() {
  local code=$1
  shift
  printf 'intutic-sandbox: %s\n' "$*" >&2
  exit "$code"
}

# Values arrive on stdin, never in the container config (Docker stores Env on disk) or on a command
# line: "INTUTIC-ENV-2 <nonce>", then "NAME value" lines with every byte of the value written \xHH (so a
# builtin decodes it: no process per variable), then "INTUTIC-ENV-END". They are kept in arrays and
# exported only in the subshell that becomes the agent, so root's own steps never see them. The nonce
# (never exported either) signs the exit trailer.
env_names=()
env_values=()
nonce=""
read_env_block() {
  [ "${INTUTIC_SANDBOX_ENV_STDIN:-}" = 1 ] || return 0
  local header name escaped value
  IFS=' ' read -r header nonce || die $EXIT_ENV "no environment block on stdin"
  [ "$header" = "INTUTIC-ENV-2" ] && [[ $nonce =~ ^[0-9a-f]{32}$ ]] || die $EXIT_ENV "unexpected environment block header"
  while IFS=' ' read -r name escaped; do
    [ "$name" = "INTUTIC-ENV-END" ] && return 0
    [[ $name =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die $EXIT_ENV "invalid variable name in the environment block"
    [[ $escaped =~ ^(\\x[0-9a-f]{2})*$ ]] || die $EXIT_ENV "undecodable value for $name"
    printf -v value '%b' "$escaped"
    env_names+=("$name")
    env_values+=("$value")
  done
  die $EXIT_ENV "the environment block ended early"
}

# OUTPUT and INPUT default to DROP; loopback, established traffic and (when named) the proxy's
# address:port are the only exceptions. Everything else is rejected outright so that tools fail at once
# instead of hanging on a timeout (plain DROP when the kernel lacks REJECT). Verified after applying,
# because a silent no-op would be "open".
firewall_rules() {
  local allow=$1 reject=$2
  printf '*filter\n:INPUT DROP [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT DROP [0:0]\n'
  printf -- '-A INPUT -i lo -j ACCEPT\n-A INPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT\n'
  printf -- '-A OUTPUT -o lo -j ACCEPT\n-A OUTPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT\n'
  [ -n "$allow" ] && printf -- '%s\n' "$allow"
  if [ "$reject" = 1 ]; then
    printf -- '-A OUTPUT -p tcp -j REJECT --reject-with tcp-reset\n-A OUTPUT -j REJECT\n'
  fi
  printf 'COMMIT\n'
}

apply_firewall() {
  local proxy=${INTUTIC_SANDBOX_PROXY:-} allow="" ip port out
  if [ -n "$proxy" ]; then
    ip=${proxy%:*}
    port=${proxy##*:}
    [[ $ip =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ && $port =~ ^[0-9]{1,5}$ ]] ||
      die $EXIT_FIREWALL "firewall not applied: proxy address '$proxy' is not IPv4:port; refusing to run"
    allow="-A OUTPUT -d $ip/32 -p tcp --dport $port -j ACCEPT"
  fi
  out=$(firewall_rules "$allow" 1 | iptables-restore 2>&1) ||
    out=$(firewall_rules "$allow" 0 | iptables-restore 2>&1) ||
    die $EXIT_FIREWALL "firewall could not be applied (the container needs NET_ADMIN); refusing to run the command without it: ${out//$'\n'/ }"
  iptables -S OUTPUT 2>/dev/null | grep -qx -- '-P OUTPUT DROP' ||
    die $EXIT_FIREWALL "firewall did not take effect (OUTPUT policy is not DROP); refusing to run"
  # IPv6: when the namespace has it, it must be closed too; when it is disabled there is nothing to close.
  local v6_disabled=1
  { read -r v6_disabled </proc/sys/net/ipv6/conf/all/disable_ipv6; } 2>/dev/null
  if [ "$v6_disabled" != 1 ]; then
    out=$(printf '*filter\n:INPUT DROP [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT DROP [0:0]\n-A INPUT -i lo -j ACCEPT\n-A OUTPUT -o lo -j ACCEPT\nCOMMIT\n' | ip6tables-restore 2>&1) ||
      die $EXIT_FIREWALL "IPv6 firewall could not be applied; refusing to run: ${out//$'\n'/ }"
  fi
}

trust_run_ca() {
  [ -e "$RUN_CA" ] || return 0
  local ca=""
  [ -r "$RUN_CA" ] && { [ -d "${BUNDLE%/*}" ] || mkdir -p "${BUNDLE%/*}"; } ||
    die $EXIT_SETUP "could not add the run's CA certificate to the trust store"
  IFS= read -r -d '' ca <"$RUN_CA"
  printf '\n%s' "$ca" >>"$BUNDLE" || die $EXIT_SETUP "could not add the run's CA certificate to the trust store"
}

# The mark the MCP proxy and the gates look for before they apply a mutating fault (they apply one
# only inside a sandbox): INTUTIC_SANDBOX=1 in the command's environment and this file, made by root
# here, which the unprivileged agent could not have made (nor can a host user without root).
mark_sandbox() {
  install -d -o 0 -g 0 -m 0755 "${SANDBOX_MARKER%/*}" &&
    rm -f "$SANDBOX_MARKER" && printf 'intutic-sandbox\n' >"$SANDBOX_MARKER" && chmod 0444 "$SANDBOX_MARKER" ||
    die $EXIT_SETUP "could not write the sandbox marker $SANDBOX_MARKER"
}

# Where the managed gates (registered at each harness's admin level in the agent images) find their
# plan, policy and events: NAME=value lines from the env block and the agent's home, root-owned 0444,
# so nothing the agent sets or writes moves them (libs/gates/src/managed.ts reads it).
write_gates_env() {
  local i out=""
  for i in "${!env_names[@]}"; do
    [[ $GATES_ENV_KEYS == *" ${env_names[i]} "* ]] || continue
    [[ ${env_values[i]} != *$'\n'* ]] || die $EXIT_ENV "${env_names[i]} holds a line break"
    out+="${env_names[i]}=${env_values[i]}"$'\n'
  done
  out+="HOME=$home"$'\n'
  rm -f "$GATES_ENV" && printf '%s' "$out" >"$GATES_ENV" && chmod 0444 "$GATES_ENV" ||
    die $EXIT_SETUP "could not write the gates' settings $GATES_ENV"
}

# Mount points at or under /work, from the kernel's own table, read once before the env block (the
# table is fixed when the container starts, and reading it does not touch /work): the read-only ones
# are the governance the runner protects, the writable ones /work itself and the directories pinned
# around it. Our mount points have plain names (mountinfo escapes only blanks).
ro_mounts=()
rw_mounts=()
read_work_mounts() {
  local mode mount
  while read -r mode mount; do
    if [ "$mode" = ro ]; then ro_mounts+=("$mount"); else rw_mounts+=("$mount"); fi
  done < <(awk '$5 == "/work" || index($5, "/work/") == 1 {
    n = split($6, opts, ","); for (i = 1; i <= n; i++) if (opts[i] == "ro" || opts[i] == "rw") { print opts[i], $5; break } }' /proc/self/mountinfo)
}

# chown -h what FROM_UID owns under /work, except in the read-only mounts: they are not the agent's to
# have, and chown would fail there. What FROM_UID:FROM_GID owns becomes TO_UID:TO_GID, what FROM_UID
# owns with another group becomes TO_UID's (its group kept); chown's --from checks again as it changes
# each. Every writable mount is a starting point, so a writable hole in a read-only directory (the
# gates' log) is reached too. -h never follows a symlink, so a link the agent planted cannot redirect it.
chown_work() {
  local from_uid=$1 from_gid=$2 to_uid=$3 to_gid=$4 prune=() mount
  for mount in "${ro_mounts[@]}"; do prune+=(-path "$mount" -prune -o); done
  find "${rw_mounts[@]}" "${prune[@]}" -uid "$from_uid" \( \
    -gid "$from_gid" -exec chown -h --from="$from_uid:$from_gid" "$to_uid:$to_gid" {} + -o \
    -exec chown -h --from="$from_uid" "$to_uid" {} + \)
}

# The image's agent user: its uid, gid and home, from one passwd lookup; the home made private now
# (its owner is set once /work's is known).
agent_identity() {
  local entry
  entry=$(getent passwd agent) || die $EXIT_SETUP "the image has no 'agent' user"
  IFS=: read -r _ _ agent_uid agent_gid _ home _ <<<"$entry"
  mkdir -p "$home" && chmod 0700 "$home" || die $EXIT_SETUP "could not prepare the agent's home $home"
}

# The agent runs with the workspace owner's uid, so files it writes stay the host user's. A root-owned
# workspace (host user root, or a rootless engine's own uid) is lent to `agent` instead and given back
# on exit.
lend_workspace() {
  local owner
  owner=$(stat -c '%u %g' /work) || die $EXIT_SETUP "/work is not mounted"
  read -r work_uid work_gid <<<"$owner"
  if [ "$work_uid" != 0 ]; then
    run_uid=$work_uid
    run_gid=$work_gid
    [ "$run_gid" = 0 ] && run_gid=$agent_gid
    sed -i "s/^agent:x:[0-9]*:[0-9]*:/agent:x:$run_uid:$run_gid:/" /etc/passwd &&
      sed -i "s/^agent:x:[0-9]*:/agent:x:$run_gid:/" /etc/group || die $EXIT_SETUP "could not map the agent user to uid $run_uid"
    lent=0
  else
    run_uid=$agent_uid
    run_gid=$agent_gid
    chown_work 0 0 "$run_uid" "$run_gid" || die $EXIT_SETUP "could not give the agent user write access to /work"
    lent=1
  fi
  chown -R -h "$run_uid:$run_gid" "$home" || die $EXIT_SETUP "could not prepare the agent's home $home"
}

give_back_workspace() {
  [ "${lent:-0}" = 1 ] || return 0
  chown_work "$run_uid" "$run_gid" 0 0 2>/dev/null
}

# With governance mounted (INTUTIC_SANDBOX_GOVERNANCE=1), /work and the directories pinned in it are
# root's with mode 0777 while the command runs: the agent still creates, renames and deletes entries
# in them, but can no longer chmod them shut around the gates (a gate that cannot be reached is a
# hook that fails, and some harnesses run the call anyway). Owner and mode are put back on exit. No
# sticky bit: what it would guard (root's entries) are mount points already, and without it a host
# user can still remove what a killed sandbox left sealed.
sealed=()
sealed_owner=()
sealed_mode=()
seal_work() {
  [ "${INTUTIC_SANDBOX_GOVERNANCE:-}" = 1 ] || return 0
  local dirs=() info=() dir i
  for dir in "${rw_mounts[@]}"; do
    if [ -d "$dir" ] && [ ! -L "$dir" ]; then dirs+=("$dir"); fi
  done
  [ "${#dirs[@]}" -gt 0 ] || return 1
  # One stat, one chown and one chmod for them all; stat says "uid:gid mode" per directory, in order.
  mapfile -t info < <(stat -c '%u:%g %a' -- "${dirs[@]}")
  [ "${#info[@]}" = "${#dirs[@]}" ] || return 1
  for i in "${!dirs[@]}"; do
    sealed+=("${dirs[i]}")
    sealed_owner+=("${info[i]% *}")
    sealed_mode+=("${info[i]#* }")
  done
  chown 0:0 -- "${sealed[@]}" && chmod 0777 -- "${sealed[@]}"
}

# One chown per owner and one chmod per mode to put back (the directories usually share both).
unseal_work() {
  local -A by_owner=() by_mode=()
  local -a paths
  local i key
  for i in "${!sealed[@]}"; do
    by_owner[${sealed_owner[i]}]+="${sealed[i]}"$'\n'
    by_mode[${sealed_mode[i]}]+="${sealed[i]}"$'\n'
  done
  {
    for key in "${!by_owner[@]}"; do
      mapfile -t paths <<<"${by_owner[$key]%$'\n'}"
      chown "$key" -- "${paths[@]}"
    done
    for key in "${!by_mode[@]}"; do
      mapfile -t paths <<<"${by_mode[$key]%$'\n'}"
      chmod "$key" -- "${paths[@]}"
    done
  } 2>/dev/null
}

restore_workspace() {
  unseal_work
  give_back_workspace
}

# A stop silences the entrypoint first: a setup step cut short would otherwise say so (or bash would
# report what the kill took) into the stream the runner keeps as the agent's.
stopping=0
on_stop() {
  stopping=1
  exec 2>/dev/null
  kill -KILL -1
}

trap on_stop TERM INT HUP
apply_firewall
trust_run_ca
mark_sandbox
agent_identity
read_work_mounts
read_env_block
write_gates_env
lend_workspace
seal_work || { restore_workspace; die $EXIT_SETUP "could not seal /work around the governance mounted in it"; }
if [ "$stopping" = 1 ]; then
  restore_workspace
  [ -z "$nonce" ] || printf 'intutic-exit-%s %d\n' "$nonce" 143
  exit 143
fi
[ $# -gt 0 ] || set -- bash

# The command gets the container's stderr through fd 3; the entrypoint keeps /dev/null as its own
# from before the fork, so a notice about the command's end (killed by our stop, the OOM killer or
# anyone else) has nowhere to go but away.
exec 3>&2 2>/dev/null
(
  for i in "${!env_names[@]}"; do export "${env_names[$i]}=${env_values[$i]}"; done
  export HOME="$home" USER=agent LOGNAME=agent SHELL=/bin/bash INTUTIC_SANDBOX=1
  if [ -e "$RUN_CA" ]; then
    export NODE_EXTRA_CA_CERTS=$BUNDLE SSL_CERT_FILE=$BUNDLE REQUESTS_CA_BUNDLE=$BUNDLE
  fi
  unset INTUTIC_SANDBOX_ENV_STDIN INTUTIC_SANDBOX_PROXY INTUTIC_SANDBOX_GOVERNANCE
  cd /work || exit $EXIT_SETUP
  unset OLDPWD
  exec setpriv --reuid="$run_uid" --regid="$run_gid" --clear-groups \
    --inh-caps=-all --ambient-caps=-all --bounding-set=-all --no-new-privs -- "$@"
) </dev/null 2>&3 3>&- &
child=$!
exec 3>&-

code=0
wait "$child" || code=$?
[ "$stopping" = 1 ] && code=143
# Whatever the command left running dies with it, before the workspace is given back.
kill -KILL -1 2>/dev/null
restore_workspace
# The exit trailer (see exit-trailer.ts): the command is over, on the same pipe as its stdout and after
# all of it, well before the engine has torn the container down. Stopped, it says the stop is done:
# every process killed, the workspace given back (the runner knows it stopped it; the code is 143).
[ -z "$nonce" ] || printf 'intutic-exit-%s %d\n' "$nonce" "$code"
exit "$code"
