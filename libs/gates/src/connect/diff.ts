// A unified diff of two texts (line based, 3 lines of context), for `intutic connect --dry-run`.
// Settings files are small, so a plain LCS table is fast enough and keeps this short.

type Op = { kind: ' ' | '-' | '+'; line: string; a: number; b: number };

function ops(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) out.push({ kind: ' ', line: a[i]!, a: i++, b: j++ });
    else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) out.push({ kind: '-', line: a[i]!, a: i++, b: j });
    else out.push({ kind: '+', line: b[j]!, a: i, b: j++ });
  }
  return out;
}

const splitLines = (text: string): string[] => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));

export function unifiedDiff(before: string | null, after: string, path: string, context = 3): string {
  const a = splitLines(before ?? '');
  const all = ops(a, splitLines(after));
  const changed = all.map((o, k) => (o.kind !== ' ' ? k : -1)).filter((k) => k >= 0);
  if (changed.length === 0) return '';
  const header = `--- ${before === null ? '/dev/null' : `a/${path}`}\n+++ b/${path}\n`;
  const hunks: string[] = [];
  let k = 0;
  while (k < changed.length) {
    const start = Math.max(0, changed[k]! - context);
    let end = Math.min(all.length, changed[k]! + context + 1);
    while (k + 1 < changed.length && changed[k + 1]! - context <= end) end = Math.min(all.length, changed[++k]! + context + 1);
    k++;
    const slice = all.slice(start, end);
    const aLines = slice.filter((o) => o.kind !== '+').length;
    const bLines = slice.filter((o) => o.kind !== '-').length;
    const aStart = aLines === 0 ? slice[0]!.a : slice.find((o) => o.kind !== '+')!.a + 1;
    const bStart = bLines === 0 ? slice[0]!.b : slice.find((o) => o.kind !== '-')!.b + 1;
    hunks.push(`@@ -${aStart},${aLines} +${bStart},${bLines} @@\n${slice.map((o) => o.kind + o.line).join('\n')}\n`);
  }
  return header + hunks.join('');
}
