// The commands docker-compose.yml's header tells a user to type, run as written (with `<run>` filled
// in): each must be a command the CLI takes, never a usage error (exit 64). Real Redis, a prefix of
// this test's own; the run named does not exist, so the CLI gets as far as asking Redis for it.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { redisRequirement, requireOrSkip } from '@intutic/testkit';

const REPO_ROOT = join(import.meta.dirname, '../../..');
const BIN = join(REPO_ROOT, 'apps/cli/bin/intutic.mjs');
const ok = requireOrSkip('compose header commands', await redisRequirement());

/** The `intutic …` commands of the header's usage block (the comment lines before `services:`). */
export function headerCommands(compose: string): string[] {
  const header = compose.slice(0, compose.indexOf('\nservices:'));
  return [...header.matchAll(/^#\s+(?:.*&&\s*)?(intutic [^#\n]*?)\s*(?:#.*)?$/gm)].map((m) => m[1]!);
}

beforeAll(() => {
  if (ok) execFileSync(process.execPath, [join(REPO_ROOT, 'scripts/build.mjs')], { cwd: REPO_ROOT, stdio: 'pipe', timeout: 120_000 });
}, 180_000);

describe.skipIf(!ok)("docker-compose.yml's header", () => {
  it('shows a follow command that names the run, and the CLI takes it as written', () => {
    const commands = headerCommands(readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8'));
    const follow = commands.filter((c) => c.includes('--follow'));
    expect(follow, commands.join('\n')).toEqual(['intutic chaos status <run> --follow']);
    const args = follow[0]!.replace('<run>', 'h8-header-no-such-run').split(/\s+/).slice(1);
    const env = { ...process.env, INTUTIC_QUEUE_PREFIX: `h8-header-${process.pid}`, NO_COLOR: '1' };
    const result = spawnSync(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 60_000 });
    // Not a usage error: the command reached the queue and was told the run is not there.
    expect(result.status, result.stderr).toBe(3);
    expect(result.stderr).toContain('no run h8-header-no-such-run in the queue');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
