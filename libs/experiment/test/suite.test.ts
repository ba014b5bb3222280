// Suites and profiles (issue 37): an experiment written once with `task:`, run under each profile;
// a suite file validated whole (every error at once, each at its file:line) before it expands into
// its cells.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentCommandFor, agentKindOf, builtInProfile, validateSuiteFile, type Profile } from '../src/index.ts';
import { check, experimentText, fakeDeps } from './helpers.ts';

const taskExperiment = (name: string) =>
  experimentText()
    .replace('name: base-case', `name: ${name}`)
    .replace(/^agent:.*$/m, `task: "Fix the failing test; don't skip it."`);

describe('profiles', () => {
  it('starts each shipped agent on the task, the task one quoted shell word', () => {
    for (const id of ['claude-code', 'codex', 'gemini-cli'] as const) {
      const command = agentCommandFor(builtInProfile(id)!, "it's $(rm -rf /) time");
      expect(agentKindOf(command)).toBe(id);
      expect(command).toContain(`'it'\\''s $(rm -rf /) time'`);
    }
  });

  it('passes the model with the flag each agent takes', () => {
    expect(agentCommandFor({ ...builtInProfile('codex')!, model: 'gpt-5-mini' }, 'x')).toMatch(/\ncodex --model 'gpt-5-mini' exec /);
    expect(agentCommandFor({ ...builtInProfile('gemini-cli')!, model: 'gemini-2.5-flash' }, 'x')).toMatch(/^gemini -m 'gemini-2.5-flash' /);
  });

  it('fills a command profile template', () => {
    const profile: Profile = {
      id: 'aider',
      agent: 'command',
      model: 'm1',
      args: 'aider --model {model} --message {task}',
      image: 'me/aider:1',
      mcp_servers: {},
    };
    expect(agentCommandFor(profile, 'do it')).toBe("aider --model 'm1' --message 'do it'");
  });
});

it("points Codex at the repetition's proxy before starting it (its provider is its own configuration)", () => {
  const command = agentCommandFor(builtInProfile('codex')!, 'x');
  expect(command).toMatch(/^export CODEX_HOME="\$HOME\/\.codex"\n/);
  expect(command).toContain('base_url = "$OPENAI_BASE_URL"');
  expect(command).toContain('supports_websockets = false');
  expect(command.split('\n').at(-1)).toMatch(/^codex exec .* 'x'$/);
  expect(agentCommandFor(builtInProfile('claude-code')!, 'x')).toMatch(/^claude -p 'x' /);
});

describe('an experiment with task: instead of agent:', () => {
  it('validates, keeps the task, and runs under the claude-code profile alone', () => {
    const result = check(taskExperiment('task-only'));
    expect(result.errors).toEqual([]);
    expect(result.experiment?.task).toBe("Fix the failing test; don't skip it.");
    expect(agentKindOf(result.experiment!.agent)).toBe('claude-code');
  });

  it('still needs one of agent and task', () => {
    const result = check(experimentText().replace(/^agent:.*\n/m, ''));
    expect(result.errors.map((e) => e.message)).toContainEqual(expect.stringContaining('task:'));
  });
});

describe('suite files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'intutic-suite-'));
    writeFileSync(join(dir, 'a.yaml'), taskExperiment('exp-a'));
    writeFileSync(join(dir, 'b.yaml'), taskExperiment('exp-b'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const suite = async (text: string) => {
    writeFileSync(join(dir, 'suite.yaml'), text);
    return validateSuiteFile(join(dir, 'suite.yaml'), fakeDeps());
  };

  it("expands experiments (by glob) × profiles into cells with each profile's agent and image", async () => {
    const result = await suite(
      [
        'name: small',
        'experiments: ["*.yaml"]',
        'profiles:',
        '  - claude-code',
        '  - { id: codex-mini, agent: codex, model: gpt-5-mini }',
        '  - { id: other, agent: command, args: "other-agent {task}", image: me/other:1 }',
        'repetitions: 1',
        'cost_ceiling_usd: 5',
        '',
      ].join('\n'),
    );
    expect(result.errors).toEqual([]);
    // suite.yaml itself matches *.yaml but is no experiment: the glob leaves the suite file out.
    expect(result.suite!.experiments.map((e) => e.experiment.name)).toEqual(['exp-a', 'exp-b']);
    expect(result.suite!.cells.map((c) => `${c.experiment}/${c.profile}`)).toEqual([
      'exp-a/claude-code',
      'exp-a/codex-mini',
      'exp-a/other',
      'exp-b/claude-code',
      'exp-b/codex-mini',
      'exp-b/other',
    ]);
    const codex = result.suite!.cells[1]!.run;
    expect(agentKindOf(codex.agent)).toBe('codex');
    expect(codex.agent).toContain("--model 'gpt-5-mini'");
    expect(codex.repeat).toBe(1);
    expect(result.suite!.cells[2]!.run.sandbox_image).toBe('me/other:1');
  });

  it('reports every problem at once, each at its file:line', async () => {
    writeFileSync(join(dir, 'pinned.yaml'), experimentText().replace('name: base-case', 'name: pinned'));
    writeFileSync(join(dir, 'broken.yaml'), taskExperiment('broken').replace('repeat: 2', 'repeat: 99'));
    const result = await suite(
      [
        'name: broken-suite',
        'experiments:',
        '  - pinned.yaml',
        '  - broken.yaml',
        '  - nothing-*.yaml',
        'profiles:',
        '  - claud-code',
        '  - { id: x, agent: command, args: "x-agent" }',
        'cost_ceiling_usd: 5',
        '',
      ].join('\n'),
    );
    expect(result.suite).toBeUndefined();
    const lines = result.errors.map((e) => `${e.file.endsWith('suite.yaml') ? 'suite' : e.file.split('/').pop()}:${e.line}:${e.code}`);
    expect(lines).toEqual(
      expect.arrayContaining([
        'suite:7:invalid-profile',
        'suite:8:invalid-profile',
        'suite:3:profile-mismatch',
        'suite:4:experiment-invalid',
        'broken.yaml:5:out-of-range',
        'suite:5:no-experiment',
      ]),
    );
    const mismatch = result.errors.find((e) => e.code === 'profile-mismatch')!;
    expect(mismatch.message).toContain('give the prompt as task:');
  });

  describe('with a profiles file', () => {
    const suiteWith = (profiles: string[], profilesFile: string | null = 'team-profiles.yaml') =>
      suite(
        [
          'name: team',
          'experiments: ["*.yaml"]',
          ...(profilesFile ? [`profiles_file: ${profilesFile}`] : []),
          'profiles:',
          ...profiles.map((p) => `  - ${p}`),
          'cost_ceiling_usd: 5',
          '',
        ].join('\n'),
      );
    const teamProfiles = (...lines: string[]) => writeFileSync(join(dir, 'team-profiles.yaml'), ['profiles:', ...lines, ''].join('\n'));
    const where = (e: { file: string; line: number; code?: string }) => `${e.file.split('/').pop()}:${e.line}:${e.code}`;

    it("makes a file's profile, named by id, a column with its model (the file is no experiment for the glob)", async () => {
      teamProfiles(
        '  - { id: claude-sonnet, agent: claude-code, model: claude-sonnet-4-5 }',
        '  - { id: aider, agent: command, args: "aider --yes --message {task}", image: my-aider-sandbox }',
      );
      const result = await suiteWith(['codex', 'claude-sonnet', '{ id: codex-mini, agent: codex, model: gpt-5-mini }']);
      expect(result.errors).toEqual([]);
      expect(result.suite!.experiments.map((e) => e.experiment.name)).toEqual(['exp-a', 'exp-b']);
      expect(result.suite!.profiles.map((p) => p.id)).toEqual(['codex', 'claude-sonnet', 'codex-mini']);
      const sonnet = result.suite!.cells.find((c) => c.profile === 'claude-sonnet')!.run;
      expect(agentKindOf(sonnet.agent)).toBe('claude-code');
      expect(sonnet.agent).toContain("'claude-sonnet-4-5'");
    });

    it("reports the file's problems at its own path and line, with the suite's", async () => {
      teamProfiles(
        '  - { id: fine, agent: codex }',
        '  - { id: nope, agent: cursor }',
        '  - { id: no-task, agent: command, args: "x-agent", image: me/x:1 }',
        '  - { id: fine, agent: gemini-cli }',
        '  - { id: codex, agent: codex, model: gpt-5-mini }',
      );
      const result = await suiteWith(['fine', 'no-task', 'claud-code']);
      expect(result.suite).toBeUndefined();
      const lines = result.errors.map(where);
      expect(lines).toEqual(
        expect.arrayContaining([
          'team-profiles.yaml:3:invalid-profiles-file',
          'team-profiles.yaml:4:invalid-profile',
          'team-profiles.yaml:5:duplicate-profile',
          'team-profiles.yaml:6:shadowed-profile',
          'suite.yaml:6:invalid-profile',
          'suite.yaml:7:invalid-profile',
        ]),
      );
      expect(result.errors.find((e) => e.line === 6 && e.file.endsWith('suite.yaml'))!.message).toContain('has errors');
      expect(result.errors.find((e) => e.file.endsWith('team-profiles.yaml'))!.file).toBe(join(dir, 'team-profiles.yaml'));
      expect(result.errors.find((e) => e.code === 'shadowed-profile')!.message).toContain('built-in');
    });

    it("names the built-in ids and the file's ids for an unknown id", async () => {
      teamProfiles('  - { id: claude-sonnet, agent: claude-code, model: claude-sonnet-4-5 }', '  - { id: gemini-flash, agent: gemini-cli }');
      const result = await suiteWith(['claude-sonet']);
      const [error] = result.errors;
      expect(where(error!)).toBe('suite.yaml:5:invalid-profile');
      expect(error!.message).toContain('claude-code, codex, gemini-cli');
      expect(error!.message).toContain('team-profiles.yaml defines claude-sonnet, gemini-flash');
      const without = await suiteWith(['claude-sonet'], null);
      expect(without.errors[0]!.message).toContain('there is no profiles_file');
    });

    it("refuses a profiles_file that does not exist, at the suite's line, saying what to do", async () => {
      const result = await suiteWith(['claude-code'], 'missing.yaml');
      expect(result.errors.map(where)).toEqual(['suite.yaml:3:profiles-file-unreadable']);
      expect(result.errors[0]!.message).toMatch(/missing\.yaml: no such file; give the path/);
      expect(result.errors[0]!.column).toBeGreaterThan(1);
    });
  });

  it('refuses a suite file that is not a suite, with its line', async () => {
    const result = await suite('name: x\nexperiments: []\nprofiles: [claude-code]\n');
    expect(result.errors.map((e) => e.code)).toContain('invalid-suite');
    expect(result.errors.every((e) => e.line > 0)).toBe(true);
  });
});
