// `intutic chaos list`: the fault catalog and the probes (read from @intutic/faults, the one copy
// every injector and the validator use) and where the shipped example experiments are.
import { fileURLToPath } from 'node:url';
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { EXIT } from '@intutic/errors';
import { FAULTS, PROBES } from '@intutic/faults';
import { findExamplesDir, listExampleFiles } from '@intutic/experiment';
import type { Registration } from '../program.ts';

const WIDTH = 80;

export interface ListOptions {
  json: boolean;
}

export interface ListDeps {
  stdout: Writable;
  /** The shipped examples directory, when it can be found. */
  examplesDir: string | undefined;
}

/** Word-wrap `text` to the terminal width, every line starting with `indent`. */
export function wrap(text: string, indent: string, width = WIDTH): string[] {
  const lines: string[] = [];
  let line = indent;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line.length > indent.length && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent;
    }
    line += (line.length > indent.length ? ' ' : '') + word;
  }
  if (line.length > indent.length) lines.push(line);
  return lines;
}

export function catalogAsData(examplesDir: string | undefined) {
  return {
    faults: FAULTS.map((f) => ({
      id: f.id,
      injected_by: f.injectedBy,
      safety: f.safety,
      effect: f.effect,
      match_keys: f.matchKeys,
      ...(f.requiredMatch ? { required_match: f.requiredMatch } : {}),
      options: f.optionDocs.map((o) => ({
        name: o.name,
        type: o.type,
        ...(o.default !== undefined ? { default: o.default } : {}),
        description: o.description,
      })),
    })),
    common_fault_keys: ['match', 'after_calls', 'times'],
    probes: PROBES.map((p) => ({ id: p.id, passes_when: p.passesWhen, ...(p.value ? { value: p.value.description } : {}) })),
    examples: examplesDir ? { dir: examplesDir, files: listExampleFiles(examplesDir) } : null,
  };
}

function renderText(data: ReturnType<typeof catalogAsData>): string {
  const out: string[] = ['Faults (each also takes match, after_calls and times)', ''];
  for (const f of data.faults) {
    const required = f.required_match ? ` (${f.required_match} required)` : '';
    out.push(`${f.id}`);
    out.push(...wrap(`injected by ${f.injected_by.join(', ')}; ${f.safety}; matches ${f.match_keys.join(', ')}${required}`, '  '));
    out.push(...wrap(f.effect, '  '));
    for (const o of f.options) {
      if (o.name.startsWith('match.')) continue;
      const dflt = o.default !== undefined ? `, default ${o.default}` : '';
      out.push(...wrap(`${o.name} (${o.type}${dflt}): ${o.description}`, '    ').map((l, i) => (i === 0 ? l : `  ${l}`)));
    }
    out.push('');
  }
  out.push('Probes', '');
  for (const p of data.probes) {
    out.push(p.value ? `${p.id} (value: ${p.value})` : p.id);
    out.push(...wrap(`passes when ${p.passes_when}`, '  '));
    out.push('');
  }
  if (data.examples) {
    out.push(`Examples: ${data.examples.dir}`);
    for (const file of data.examples.files) out.push(`  ${file}`);
    out.push('', 'Check one: intutic chaos validate <path>    run one: intutic chaos run <path>');
  } else {
    out.push('Examples: not found next to this intutic installation');
  }
  return out.join('\n') + '\n';
}

export function runList(options: ListOptions, deps: ListDeps): number {
  const data = catalogAsData(deps.examplesDir);
  deps.stdout.write(options.json ? JSON.stringify(data, null, 2) + '\n' : renderText(data));
  return EXIT.ok;
}

export function registerChaosListCommand(chaos: Command, reg: Registration): void {
  chaos
    .command('list')
    .description('the fault catalog, the probes, and where the example experiments are')
    .option('--json', 'print it as JSON', false)
    .action((raw: { json: boolean }) => {
      // The bundle (apps/cli/dist/intutic.mjs) and the source both sit below the repository root.
      const examplesDir = findExamplesDir(fileURLToPath(import.meta.url));
      reg.setExit(runList({ json: raw.json }, { stdout: reg.ctx.stdout, examplesDir }));
    });
}
