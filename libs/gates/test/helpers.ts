// Test helpers: plans, temp projects, and reading back the events a gate wrote.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Plan, PlanFault } from '@intutic/faults';
import { scratchDir } from '@intutic/testkit';

export const CANARY = 'E-INTUTIC-0badcafe';

export function planOf(faults: Partial<PlanFault>[], runId = 'run-1'): Plan {
  return {
    schema_version: 1,
    experiment: 'test',
    run_id: runId,
    canary: CANARY,
    faults: faults.map((f, index) => ({ index, id: 'tool.error', match: {}, after_calls: 0, times: null, options: {}, ...f })),
  };
}

export interface TempProject {
  dir: string;
  home: string;
  events: string;
  planPath: string;
  env: NodeJS.ProcessEnv;
  writePlan(plan: Plan): void;
  readEvents(path?: string): Record<string, unknown>[];
}

export function tempProject(): TempProject {
  const dir = scratchDir('intutic-gate-');
  const home = join(dir, 'home');
  mkdirSync(home);
  const events = join(dir, '.intutic-chaos', 'events.jsonl');
  const planPath = join(dir, 'plan.json');
  return {
    dir,
    home,
    events,
    planPath,
    env: { HOME: home, INTUTIC_CHAOS_EVENTS: events, PATH: process.env.PATH },
    writePlan(plan) {
      writeFileSync(planPath, JSON.stringify(plan));
      this.env.INTUTIC_CHAOS_PLAN = planPath;
    },
    readEvents(path = events) {
      let text = '';
      try {
        text = readFileSync(path, 'utf8');
      } catch {
        return [];
      }
      return text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    },
  };
}

/** Bundle the gate scripts the way scripts/build.mjs does, into a temp dir (tests do not depend on a prior build). */
export async function buildGates(): Promise<string> {
  const { build } = await import('esbuild');
  const out = scratchDir('intutic-gates-dist-');
  for (const name of ['claude-code-check', 'codex-check', 'cursor-check', 'gemini-check']) {
    await build({
      entryPoints: [new URL(`../src/bin/${name}.ts`, import.meta.url).pathname],
      outfile: join(out, `${name}.cjs`),
      bundle: true,
      platform: 'node',
      target: 'node18',
      format: 'cjs',
      logLevel: 'warning',
      banner: { js: '#!/usr/bin/env node' },
    });
  }
  return out;
}

export interface HookRun {
  stdout: string;
  stderr: string;
  code: number | null;
  json: Record<string, unknown> | null;
}

/** Run a built gate as its harness would: a process with the hook JSON on stdin. */
export async function runGate(script: string, payload: unknown, env: NodeJS.ProcessEnv): Promise<HookRun> {
  const { spawn } = await import('node:child_process');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      let json: Record<string, unknown> | null = null;
      try {
        json = stdout.trim() ? (JSON.parse(stdout) as Record<string, unknown>) : null;
      } catch {
        json = null;
      }
      resolve({ stdout, stderr, code, json });
    });
    child.stdin.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
  });
}

/** Install built gates into a temp project's .intutic/hooks/ as `intutic connect` does. */
export function installGates(dist: string, projectDir: string): Record<'claude' | 'codex' | 'cursor' | 'gemini', string> {
  const hooks = join(projectDir, '.intutic', 'hooks');
  mkdirSync(hooks, { recursive: true });
  const paths = {
    claude: join(hooks, 'claude-code-check.cjs'),
    codex: join(hooks, 'codex-check.cjs'),
    cursor: join(hooks, 'cursor-check.cjs'),
    gemini: join(hooks, 'gemini-check.cjs'),
  };
  for (const [name, path] of [
    ['claude-code-check', paths.claude],
    ['codex-check', paths.codex],
    ['cursor-check', paths.cursor],
    ['gemini-check', paths.gemini],
  ] as const) {
    writeFileSync(path, readFileSync(join(dist, `${name}.cjs`)));
  }
  return paths;
}
