#!/usr/bin/env node
// The `intutic` bin: loads the bundled CLI that `npm ci` (prepare) or `npm run build` produced.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/intutic.mjs', import.meta.url);
if (!existsSync(bundle)) {
  process.stderr.write('intutic is not built yet: run `npm ci` (or `npm run build`) in the repository root.\n');
  process.exit(70);
}
await import(bundle.href);
