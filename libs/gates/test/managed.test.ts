// The managed gate's settings come from the sandbox's root-owned file, never from the agent's
// environment; a project gate stands down only where the managed one is registered and nothing
// switched it off. The files are faked (stat and read injected): the real ones are root's, in the
// image, and examples/test/managed-gates.e2e.test.ts runs them with the real agents.
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IntuticError } from '@intutic/errors';
import {
  MANAGED_ENV_FILE,
  MANAGED_REGISTRATIONS,
  geminiHooksTurnedOff,
  managedCommand,
  managedEnv,
  managedGateActive,
  parseManagedEnv,
  rootOwnedFile,
} from '../src/managed.ts';

interface FakeFile {
  text: string;
  uid?: number;
  mode?: number;
  dir?: boolean;
}

/** A filesystem of the given files: stat and read as managed.ts calls them. */
function fakeFs(files: Record<string, FakeFile>) {
  const stat = (path: string): Stats => {
    const f = files[path];
    if (!f) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return { isFile: () => !f.dir, uid: f.uid ?? 0, mode: f.mode ?? 0o100444 } as Stats;
  };
  const read = (path: string): string => {
    const f = files[path];
    if (!f) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return f.text;
  };
  return { stat, read };
}

const GATES_ENV = 'INTUTIC_CHAOS_EVENTS=/work/.intutic-chaos/events.jsonl\nINTUTIC_CHAOS_PLAN=/intutic/governance/plan.json\nHOME=/home/agent\n';
const registration = (harness: string): FakeFile => ({ text: `{"command": "${managedCommand(harness)}"}` });

describe('the managed gate reads its settings from the sandbox, not from the agent', () => {
  it('parses NAME=value lines; a name that is no gate setting is refused', () => {
    expect(parseManagedEnv(GATES_ENV)).toEqual({
      INTUTIC_CHAOS_EVENTS: '/work/.intutic-chaos/events.jsonl',
      INTUTIC_CHAOS_PLAN: '/intutic/governance/plan.json',
      HOME: '/home/agent',
    });
    expect(parseManagedEnv('INTUTIC_POLICY_REQUIRED=\n')).toEqual({ INTUTIC_POLICY_REQUIRED: '' });
    expect(() => parseManagedEnv('PATH=/tmp/evil\n')).toThrow(IntuticError);
    expect(() => parseManagedEnv('just a line\n')).toThrow(/gates\.env:1: not a gate setting/);
  });

  it("replaces every gate setting the agent's environment has, and marks the sandbox", () => {
    const { stat, read } = fakeFs({ [MANAGED_ENV_FILE]: { text: GATES_ENV } });
    const agentEnv = {
      PATH: '/usr/bin',
      HOME: '/tmp/fake-home',
      INTUTIC_CHAOS_EVENTS: '/tmp/elsewhere.jsonl',
      INTUTIC_SNAPSHOT_RULES: '/tmp/empty.json',
      INTUTIC_POLICY_REQUIRED: '',
    };
    const env = managedEnv(agentEnv, stat, read);
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/agent',
      INTUTIC_CHAOS_EVENTS: '/work/.intutic-chaos/events.jsonl',
      INTUTIC_CHAOS_PLAN: '/intutic/governance/plan.json',
      INTUTIC_SANDBOX: '1',
    });
  });

  it('without the file (an image run outside the sandbox) it decides with the tier alone: no plan, no policy, no events', () => {
    const { stat, read } = fakeFs({});
    const env = managedEnv(
      { HOME: '/home/agent', INTUTIC_CHAOS_EVENTS: '/tmp/x', INTUTIC_CHAOS_PLAN: '/tmp/p', INTUTIC_APPROVED_BYPASSES: '/tmp/b' },
      stat,
      read,
    );
    expect(env).toEqual({ HOME: '/home/agent' });
  });

  it('refuses a settings file the agent could have written (not root-owned, writable by others, not a file)', () => {
    for (const bad of [{ uid: 1000 }, { mode: 0o100666 }, { dir: true }]) {
      const { stat, read } = fakeFs({ [MANAGED_ENV_FILE]: { text: GATES_ENV, ...bad } });
      expect(() => managedEnv({}, stat, read)).toThrow(/not a root-owned file/);
      expect(rootOwnedFile(MANAGED_ENV_FILE, stat)).toBe(false);
    }
  });
});

describe("a project gate stands down where the sandbox runs its harness's managed gate", () => {
  const sandbox = (harness: string, extra: Record<string, FakeFile> = {}) =>
    fakeFs({ [MANAGED_ENV_FILE]: { text: GATES_ENV }, [MANAGED_REGISTRATIONS[harness]!]: registration(harness), ...extra });

  it('for each harness with a managed registration, in the sandbox', () => {
    for (const harness of ['claude-code', 'codex', 'gemini']) {
      const { stat, read } = sandbox(harness);
      expect(managedGateActive(harness, { HOME: '/nonexistent-home' }, stat, read), harness).toBe(true);
    }
  });

  it('not outside the sandbox, not without the registration, not for a registration the agent could have written or that names no gate', () => {
    const home = { HOME: '/nonexistent-home' };
    const claude = MANAGED_REGISTRATIONS['claude-code']!;
    expect(
      managedGateActive('claude-code', home, fakeFs({ [claude]: registration('claude-code') }).stat, fakeFs({ [claude]: registration('claude-code') }).read),
    ).toBe(false);
    const noReg = fakeFs({ [MANAGED_ENV_FILE]: { text: GATES_ENV } });
    expect(managedGateActive('claude-code', home, noReg.stat, noReg.read)).toBe(false);
    const agentWritten = sandbox('claude-code', { [claude]: { ...registration('claude-code'), uid: 1000 } });
    expect(managedGateActive('claude-code', home, agentWritten.stat, agentWritten.read)).toBe(false);
    const other = sandbox('claude-code', { [claude]: { text: '{"hooks": {}}' } });
    expect(managedGateActive('claude-code', home, other.stat, other.read)).toBe(false);
    const cursor = sandbox('claude-code');
    expect(managedGateActive('cursor', home, cursor.stat, cursor.read)).toBe(false);
  });

  it('Gemini CLI: not when its system settings were moved elsewhere by the environment', () => {
    const { stat, read } = sandbox('gemini');
    expect(managedGateActive('gemini', { HOME: '/h', GEMINI_CLI_SYSTEM_SETTINGS_PATH: '/dev/null' }, stat, read)).toBe(false);
    expect(managedGateActive('gemini', { HOME: '/h', GEMINI_CLI_SYSTEM_SETTINGS_PATH: MANAGED_REGISTRATIONS.gemini }, stat, read)).toBe(true);
  });

  it("Gemini CLI: not when a settings file it reads disables hooks (hooksConfig.disabled is merged over the system's)", () => {
    const user = join('/h', '.gemini', 'settings.json');
    const cases: [string, boolean][] = [
      ['{"hooksConfig":{"disabled":["intutic-gate"]}}', true],
      ['{"hooksConfig":{"enabled":false}}', true],
      ['{"hooksConfig":{"disabled":"x"}}', true],
      ['not json', true],
      ['[]', true],
      ['{"hooksConfig":{"disabled":[]}}', false],
      ['{"mcpServers":{}}', false],
    ];
    for (const [text, off] of cases) {
      const { stat, read } = sandbox('gemini', { [user]: { text } });
      expect(geminiHooksTurnedOff({ HOME: '/h' }, read), text).toBe(off);
      expect(managedGateActive('gemini', { HOME: '/h' }, stat, read), text).toBe(!off);
    }
    // GEMINI_CLI_HOME moves the user's settings: read there too.
    const moved = fakeFs({ [join('/g', '.gemini', 'settings.json')]: { text: '{"hooksConfig":{"disabled":["x"]}}' } });
    expect(geminiHooksTurnedOff({ HOME: '/h', GEMINI_CLI_HOME: '/g' }, moved.read)).toBe(true);
  });
});
