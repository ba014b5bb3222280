// The starters `intutic chaos init` writes: one for every fault of the catalog, each accepted by the
// real validator unchanged and with no warning, each naming every option of its fault with a comment.
import { describe, expect, it } from 'vitest';
import { FAULT_IDS, getFault } from '@intutic/faults';
import { DEFAULT_STARTER_FAULT, nearestFaultId, starterExperiment } from '../src/index.ts';
import { check } from './helpers.ts';

const starterFor = (faultId: (typeof FAULT_IDS)[number]) => starterExperiment({ faultId, project: 'my-project', verify: 'npm test' });

describe('starterExperiment', () => {
  it.each(FAULT_IDS)('writes a starter for %s that chaos validate accepts unchanged, with no warning', (faultId) => {
    const result = check(starterFor(faultId));
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    const experiment = result.experiment!;
    expect(experiment.faults.map((f) => f.id)).toEqual([faultId]);
    expect(experiment.abort.cost_usd_above).toBeGreaterThan(0);
    expect(experiment.agent).toMatch(/^claude -p "TODO: /);
    expect(experiment.verify).toBe('npm test');
  });

  it.each(FAULT_IDS)('names every option of %s with its default and a comment, and comments each probe', (faultId) => {
    const text = starterFor(faultId);
    const options = check(text).experiment!.faults[0]!.options;
    for (const doc of getFault(faultId).optionDocs.filter((d) => !d.name.startsWith('match.'))) {
      const line = text.split('\n').find((l) => new RegExp(`^\\s+(# )?${doc.name}: `).test(l));
      expect(line, doc.name).toContain(`# ${doc.description}`);
      if (doc.default !== undefined) expect(line, doc.name).toContain(`default ${doc.default}`);
      // Set (by its default or the starter's value), or shown commented out when it has neither.
      expect(line!.trimStart().startsWith('#'), doc.name).toBe(options[doc.name] === undefined);
    }
    const section = (key: string) =>
      text
        .slice(text.indexOf(`\n${key}:\n`) + 1)
        .split('\n')
        .slice(1)
        .filter((l) => l.startsWith('  - '));
    for (const line of [...section('faults'), ...section('probes'), ...section('abort')]) expect(line, line).toMatch(/ # \S/);
    expect(text).toMatch(/^# A starter chaos experiment for my-project: /);
  });

  it('lists the other fault ids when the fault was picked by default', () => {
    const text = starterExperiment({ faultId: DEFAULT_STARTER_FAULT, project: 'p', verify: 'make test', defaulted: true });
    for (const id of FAULT_IDS.filter((id) => id !== DEFAULT_STARTER_FAULT)) expect(text).toContain(`#   intutic chaos init ${id}\n`);
    expect(check(text).errors).toEqual([]);
    expect(starterFor(DEFAULT_STARTER_FAULT)).not.toContain('intutic chaos init');
  });

  it('stays valid YAML whatever the project is called and whatever verify is', () => {
    const text = starterExperiment({ faultId: 'tool.error', project: 'odd: "name" # with\nnewline', verify: 'test -f "out: #1.txt"' });
    const experiment = check(text).experiment!;
    expect(experiment.description).toBe('tool.error while the agent works on odd: "name" # with newline');
    expect(experiment.verify).toBe('test -f "out: #1.txt"');
  });
});

describe('nearestFaultId', () => {
  it('suggests the fault id a typo was meant to be, and nothing for an unrelated word', () => {
    expect(nearestFaultId('egress.dns_fial')).toBe('egress.dns_fail');
    expect(nearestFaultId('toolerror')).toBe('tool.error');
    expect(nearestFaultId('banana')).toBeUndefined();
  });
});
