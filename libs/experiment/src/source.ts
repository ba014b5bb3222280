// The YAML layer: parse keeping node ranges, report syntax problems with their positions, and map a
// data path (['faults', 0, 'match']) back to the line:column of its key or value in the file.
import { LineCounter, parseDocument, isAlias, isMap, isPair, isScalar, isSeq, visit, type Document, type Node } from 'yaml';
import type { Finding, PathSegment } from './diagnostics.ts';

export interface Position {
  line: number;
  column: number;
}

export interface YamlSource {
  text: string;
  doc: Document.Parsed;
  lineCounter: LineCounter;
}

export interface LocatedProblem extends Position {
  message: string;
  code: string;
}

export function parseYamlSource(text: string): YamlSource & { errors: LocatedProblem[]; warnings: LocatedProblem[] } {
  const lineCounter = new LineCounter();
  // logLevel 'error': problems are reported as diagnostics, never as process warnings on stderr.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, logLevel: 'error' });
  const at = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const errors = doc.errors.map((e) => ({ ...at(e.pos[0]), message: `YAML syntax: ${e.message}`, code: 'yaml-syntax' }));
  const warnings = doc.warnings.map((w) => ({ ...at(w.pos[0]), message: `YAML: ${w.message}`, code: 'yaml-warning' }));
  // An alias to an anchor that does not exist only fails when the document is converted; find it here
  // so it is located like any other syntax problem.
  visit(doc, {
    Alias(_key, node) {
      if (node.resolve(doc) === undefined) {
        errors.push({ ...at(node.range?.[0] ?? 0), message: `YAML syntax: unknown alias *${node.source}`, code: 'yaml-syntax' });
      }
    },
  });
  return { text, doc, lineCounter, errors, warnings };
}

/** A key as the data has it: a collection key is stringified the way toJS() stringifies it. */
function keyName(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  if (key === null || key === undefined) return undefined;
  return String(key);
}

function deref(node: unknown, doc: Document): unknown {
  return isAlias(node) ? node.resolve(doc) : node;
}

interface Step {
  key?: Node;
  value: unknown;
}

/** Walk the path as far as the file has it; the last step is the deepest node found. */
function walk(source: YamlSource, path: readonly PathSegment[]): Step[] {
  const steps: Step[] = [{ value: source.doc.contents }];
  let current: unknown = source.doc.contents;
  for (const segment of path) {
    current = deref(current, source.doc);
    if (isMap(current)) {
      const pair = current.items.find((p) => isPair(p) && keyName(p.key) === String(segment));
      if (!pair) break;
      steps.push({ key: pair.key as Node, value: pair.value });
      current = pair.value;
    } else if (isSeq(current) && typeof segment === 'number') {
      const item = current.items[segment];
      if (item === undefined) break;
      steps.push({ value: item });
      current = item;
    } else {
      break;
    }
  }
  return steps;
}

function startOf(node: unknown): number | undefined {
  if (node && typeof node === 'object' && 'range' in node) {
    const range = (node as { range?: [number, number, number] | null }).range;
    if (range) return range[0];
  }
  return undefined;
}

/**
 * Where a finding shows: the key or the value at its path, or, when the path goes further than the
 * file (a missing key), the nearest enclosing node that exists.
 */
export function locate(source: YamlSource, finding: Pick<Finding, 'path' | 'at'>): Position {
  const steps = walk(source, finding.path);
  const complete = steps.length === finding.path.length + 1;
  const candidates: unknown[] = [];
  const last = steps[steps.length - 1]!;
  if (complete && finding.at === 'key') candidates.push(last.key, last.value);
  else candidates.push(last.value, last.key);
  for (let i = steps.length - 2; i >= 0; i--) candidates.push(steps[i]!.value, steps[i]!.key);
  for (const node of candidates) {
    const offset = startOf(node);
    if (offset !== undefined) {
      const { line, col } = source.lineCounter.linePos(offset);
      return { line, column: col };
    }
  }
  return { line: 1, column: 1 };
}

export function positionOf(source: YamlSource, offset: number): Position {
  const { line, col } = source.lineCounter.linePos(offset);
  return { line, column: col };
}
