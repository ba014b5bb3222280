// The text of `chaos suite --compare`: what got worse first (the regression a user runs this for),
// then what got better, then what could not be compared, then a count of the cells within noise.
import { METHOD } from './compare.ts';
import type { CellChange, SuiteComparison } from './suite.ts';

const ORDER: CellChange[] = ['worse', 'better', 'cannot tell', 'only earlier', 'only now'];
const HEADINGS: Record<CellChange, string> = {
  worse: 'WORSE beyond noise',
  better: 'better beyond noise',
  'cannot tell': 'cannot tell',
  'only earlier': 'only in the earlier suite',
  'only now': 'only in this suite',
  'within noise': 'within noise',
};

export function renderSuiteComparison(c: SuiteComparison): string {
  const side = (name: string, s: SuiteComparison['now']) =>
    `${name}: suite ${s.id} (${s.name}), ${s.cells.size} cells${s.from === 'history' ? ', from the history' : ''}`;
  const lines = [side('earlier', c.earlier), side('now', c.now), ''];
  for (const change of ORDER) {
    const cells = c.cells.filter((x) => x.change === change);
    if (cells.length === 0) continue;
    lines.push(`${HEADINGS[change]} (${cells.length}):`);
    for (const x of cells) lines.push(`  ${x.experiment} × ${x.profile}: ${x.summary}`);
    lines.push('');
  }
  const quiet = c.cells.filter((x) => x.change === 'within noise').length;
  const changed = c.cells.filter((x) => x.change === 'worse' || x.change === 'better').length;
  lines.push(changed === 0 ? `No cell changed beyond noise (${quiet} within noise).` : `${quiet} other cells within noise.`);
  lines.push(`method: ${METHOD}`);
  return `${lines.join('\n')}\n`;
}
