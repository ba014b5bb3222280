// The Python SDK as a user gets it: `pip install libs/gates/python` into a fresh venv, offline (no
// index, no pip configuration), then its unittest suite and the checks below run with that venv's
// interpreter from a directory where the source tree is not importable, so they test the installed
// copy. Its event lines must pass the real events schema, and it shares a repetition's counters and
// holds with the hook gates (same state file, same lock).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { devNull } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chaosEventSchema } from '@intutic/events';
import { type Requirement, requireOrSkip, scratchDir } from '@intutic/testkit';
import { buildGates, installGates, planOf, runGate, tempProject } from './helpers.ts';

const PYTHON_DIR = fileURLToPath(new URL('../python', import.meta.url));
const CONFORMANCE_DIR = fileURLToPath(new URL('../conformance', import.meta.url));

function venvRequirement(): Requirement {
  try {
    execFileSync('python3', ['-c', 'import venv, ensurepip'], { stdio: 'pipe', timeout: 30_000 });
    return { ok: true, reason: '' };
  } catch {
    return { ok: false, reason: 'no python3 with venv and ensurepip (Debian: apt-get install python3 python3-venv)' };
  }
}

const ready = requireOrSkip('Python gate SDK', venvRequirement());

/** The environment without pip's settings (PIP_*, its config files) and without PYTHONPATH: nothing but the venv. */
function isolatedEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PIP_') && !name.startsWith('PYTHON')));
  return { ...env, PIP_CONFIG_FILE: devNull, ...extra };
}

let scratch: string;
let venvPython: string;
let dist: string;

/** Runs a script with the venv's interpreter, from the scratch directory (the source tree is not on sys.path). */
function python(script: string, env: NodeJS.ProcessEnv): string {
  return execFileSync(venvPython, ['-c', script], { cwd: scratch, env: { ...env, PATH: process.env.PATH }, encoding: 'utf8' });
}

beforeAll(async () => {
  if (!ready) return;
  dist = await buildGates();
  scratch = scratchDir('intutic-python-sdk-');
  execFileSync('python3', ['-m', 'venv', join(scratch, 'venv')], { env: isolatedEnv(), stdio: 'pipe' });
  venvPython = join(scratch, 'venv', 'bin', 'python');
  execFileSync(venvPython, ['-m', 'pip', 'install', '--no-index', '--quiet', PYTHON_DIR], {
    cwd: scratch,
    env: isolatedEnv(),
    stdio: 'pipe',
    timeout: 120_000,
  });
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe.runIf(ready)('pip install libs/gates/python', () => {
  it('installs offline into a fresh venv, with its metadata and no dependency', () => {
    const installed = JSON.parse(
      python(
        `
import importlib.metadata as metadata, json, intutic_clawde
print(json.dumps({"file": intutic_clawde.__file__, "version": metadata.version("intutic-clawde"), "module_version": intutic_clawde.__version__,
                  "requires": metadata.requires("intutic-clawde"), "requires_python": metadata.metadata("intutic-clawde")["Requires-Python"]}))
`,
        {},
      ),
    ) as Record<string, unknown>;
    expect(relative(join(scratch, 'venv'), String(installed['file']))).toMatch(/^lib\/python3\.\d+\/site-packages\/intutic_clawde\/__init__\.py$/);
    expect(installed['version']).toBe(installed['module_version']);
    expect(installed['requires']).toBeNull();
    expect(installed['requires_python']).toBe('>=3.9');
  });

  it('imports nothing but the standard library and itself', () => {
    const imports = python(
      `
import ast, os, sys, intutic_clawde
root = os.path.dirname(intutic_clawde.__file__)
names = set()
for name in os.listdir(root):
    if name.endswith(".py"):
        for node in ast.walk(ast.parse(open(os.path.join(root, name), encoding="utf-8").read())):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names.add(node.module.split(".")[0])
print("\\n".join(sorted(names - set(sys.stdlib_module_names) - {"intutic_clawde"})))  # Python 3.10+
`,
      {},
    );
    expect(imports.trim()).toBe('');
  });

  it('passes its unittest suite against the installed copy', () => {
    // The suite puts its parent directory on sys.path and reads ../../conformance: a copy of both,
    // with no intutic_clawde beside it, leaves only the installed package to import.
    cpSync(join(PYTHON_DIR, 'tests'), join(scratch, 'gates', 'python', 'tests'), { recursive: true, filter: (path) => !path.includes('__pycache__') });
    cpSync(CONFORMANCE_DIR, join(scratch, 'gates', 'conformance'), { recursive: true });
    const suite = spawnSync(venvPython, ['-m', 'unittest', 'discover', '-s', join(scratch, 'gates', 'python', 'tests')], {
      cwd: scratch,
      env: isolatedEnv(),
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect({ status: suite.status, stderr: suite.stderr }).toEqual({ status: 0, stderr: expect.stringMatching(/\nRan [1-9]\d* tests? in [\d.]+s\n\nOK\n$/) });
    // The suite decides the whole shared corpus (4,000 cases): seconds alone, more beside a busy machine's other work.
  }, 120_000);
});

describe.runIf(ready)('intutic_clawde.gate', () => {
  it('writes events the schema accepts', () => {
    const p = tempProject();
    p.writePlan(
      planOf([
        { id: 'permission.deny_or_delay', match: { tool: 'deploy' }, options: { mode: 'hold_then_deny', delay_s: 0 } },
        { id: 'tool.error', match: { tool: 'search' }, options: { message: 'x'.repeat(900) } },
      ]),
    );
    python(
      `
from intutic_clawde.gate import Gate, GateError
g = Gate(harness="py-agent", project_dir=${JSON.stringify(p.dir)})
for tool, inp in [("deploy", {"e": 1}), ("deploy", {"e": 1}), ("search", {"q": "y" * 5000}), ("shell", {"command": "rm -rf /"}), ("other", None)]:
    try:
        g.record(g.check(tool, inp, server="srv" if tool == "other" else None), ok=True)
    except GateError:
        pass
`,
      p.env,
    );
    const events = p.readEvents();
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(['plan_loaded', 'gate_decision', 'fault_injected', 'tool_call']));
    for (const e of events) expect(chaosEventSchema.safeParse(e).error?.issues ?? []).toEqual([]);
  });

  it('shares counters with the hook gates of the same repetition', async () => {
    const p = tempProject();
    const gates = installGates(dist, p.dir);
    p.writePlan(planOf([{ id: 'tool.error', match: { tool: 'Bash' }, times: 1 }]));
    const hook = await runGate(gates.claude, { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 't1' }, p.env);
    expect(JSON.stringify(hook.json)).toContain('tool error');
    const out = python(
      `
from intutic_clawde.gate import Gate
print(Gate(project_dir=${JSON.stringify(p.dir)}).check("Bash", {"command": "ls"}).decision["decision"])
`,
      p.env,
    );
    expect(out.trim()).toBe('allow');
    expect(
      p
        .readEvents()
        .filter((e) => e.type === 'plan_loaded')
        .map((e) => [e.source, e.detail]),
    ).toEqual([
      ['gate', 'claude-code'],
      ['sdk', 'sdk'],
    ]);
  });
});
