#!/usr/bin/env node
// The `intutic-mcp-proxy` bin: loads the standalone MCP proxy bundle (the same file the sandbox
// images carry) that `npm ci` (prepare) or `npm run build` produced.
import { existsSync } from 'node:fs';

const bundle = new URL('../../mcp-proxy/dist/intutic-mcp-proxy.mjs', import.meta.url);
if (!existsSync(bundle)) {
  process.stderr.write('intutic-mcp-proxy is not built yet: run `npm ci` (or `npm run build`) in the repository root.\n');
  process.exit(70);
}
await import(bundle.href);
