#!/usr/bin/env bash
# Install the real agent CLIs the end-to-end tests drive (offline, against the scripted model):
# pinned @anthropic-ai/claude-code, @openai/codex and @google/gemini-cli, with npm, into
# ${INTUTIC_AGENTS_DIR:-~/.cache/intutic-agents} — never into the repository's node_modules. Idempotent:
# pinned versions already present are kept. Prints the bin paths as `claude=<path>`, `codex=<path>`
# and `gemini=<path>` lines on stdout.
set -euo pipefail

CLAUDE_CODE_VERSION="${INTUTIC_CLAUDE_CODE_VERSION:-2.1.328}"
CODEX_VERSION="${INTUTIC_CODEX_VERSION:-0.169.0}"
GEMINI_CLI_VERSION="${INTUTIC_GEMINI_CLI_VERSION:-0.61.0}"
DIR="${INTUTIC_AGENTS_DIR:-$HOME/.cache/intutic-agents}"

log() { printf '[agents] %s\n' "$*" >&2; }

installed_version() { # <package>: the version under $DIR, or nothing
  local pkg_json="$DIR/node_modules/$1/package.json"
  [ -f "$pkg_json" ] && node -p "require(process.argv[1]).version" "$pkg_json" 2>/dev/null || true
}

mkdir -p "$DIR"
# A package.json of its own keeps npm from walking up into an enclosing project.
[ -f "$DIR/package.json" ] || printf '{ "name": "intutic-agents", "private": true }\n' >"$DIR/package.json"

want=()
[ "$(installed_version @anthropic-ai/claude-code)" = "$CLAUDE_CODE_VERSION" ] || want+=("@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION")
[ "$(installed_version @openai/codex)" = "$CODEX_VERSION" ] || want+=("@openai/codex@$CODEX_VERSION")
[ "$(installed_version @google/gemini-cli)" = "$GEMINI_CLI_VERSION" ] || want+=("@google/gemini-cli@$GEMINI_CLI_VERSION")

if [ "${#want[@]}" -gt 0 ]; then
  log "installing ${want[*]} into $DIR"
  # --prefix pins the install to $DIR whatever the current directory; the agents' optional
  # platform packages carry their native binaries, so optional dependencies must stay on.
  (cd "$DIR" && npm install --prefix "$DIR" --no-audit --no-fund --save-exact --include=optional "${want[@]}" >&2)
else
  log "pinned versions already installed in $DIR"
fi

claude_bin="$DIR/node_modules/.bin/claude"
codex_bin="$DIR/node_modules/.bin/codex"
gemini_bin="$DIR/node_modules/.bin/gemini"
"$claude_bin" --version >/dev/null 2>&1 || { log "claude does not run: $claude_bin"; exit 1; }
"$codex_bin" --version >/dev/null 2>&1 || { log "codex does not run: $codex_bin"; exit 1; }
# A HOME of its own: the version check must not create ~/.gemini in the caller's home.
gemini_home="$(mktemp -d)"
trap 'rm -rf "$gemini_home"' EXIT
HOME="$gemini_home" "$gemini_bin" --version >/dev/null 2>&1 || { log "gemini does not run: $gemini_bin"; exit 1; }
echo "claude=$claude_bin"
echo "codex=$codex_bin"
echo "gemini=$gemini_bin"
