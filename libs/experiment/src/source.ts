// The YAML layer: parse keeping node ranges, report syntax problems with their positions, and map a
// data path (['faults', 0, 'match']) back to the line:column of its key or value in the file.
// Hostile YAML is refused here, located, before the parser spends long on it or anything recurses
// into it: more than MAX_YAML_TOKENS tokens (counted by the lexer, which stops there), nesting deeper
// than MAX_NESTING (checked on the parser's tokens, which are built without recursion), alias cycles
// and aliases that nest the data too deep, more than MAX_ALIASES aliases, NUL in a key or value.
// Every check is linear in the file's size.
import {
  Lexer,
  LineCounter,
  Parser,
  parseDocument,
  isAlias,
  type Alias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  type CST,
  type Document,
  type Node,
  type Pair,
  type YAMLMap,
  type YAMLSeq,
} from 'yaml';
import type { Finding, PathSegment } from './diagnostics.ts';
import { MAX_ALIASES, MAX_NESTING, MAX_YAML_TOKENS } from './limits.ts';

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
  const at = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const pastLimit = pastTokenLimit(text);
  if (pastLimit !== undefined) {
    const message = `more than ${MAX_YAML_TOKENS} YAML tokens (keys, values, punctuation, line breaks): an experiment has a few hundred; check that this is the right file`;
    return { text, doc: parseDocument(''), lineCounter, errors: [{ ...positionInText(text, pastLimit), message, code: 'too-many-tokens' }], warnings: [] };
  }
  // The document is built by recursion, so nesting is measured on the tokens first.
  const deep = firstTooDeep(new Parser(lineCounter.addNewLine).parse(text));
  if (deep !== undefined) {
    const message = `nested deeper than ${MAX_NESTING} levels of mappings and lists: an experiment needs a few; look for brackets that are never closed`;
    return { text, doc: parseDocument(''), lineCounter, errors: [{ ...at(deep), message, code: 'too-deep' }], warnings: [] };
  }
  // logLevel 'error': problems are reported as diagnostics, never as process warnings on stderr.
  // uniqueKeys: checked below in one pass; yaml's own check compares every key with every other.
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: false, logLevel: 'error' });
  const errors = [
    ...doc.errors.map((e) => ({ ...at(e.pos[0]), message: `YAML syntax: ${e.message}`, code: 'yaml-syntax' })),
    ...structureProblems(doc).map(({ offset, message, code }) => ({ ...at(offset), message, code })),
  ];
  const warnings = doc.warnings.map((w) => ({ ...at(w.pos[0]), message: `YAML: ${w.message}`, code: 'yaml-warning' }));
  return { text, doc, lineCounter, errors, warnings };
}

/** The lexer's markers that stand for no source text (document start, flow end, scalar). */
const LEXER_MARKERS = new Set(['\u0002', '\u0018', '\u001f']);

/** The offset at which the text passes MAX_YAML_TOKENS lexical tokens, or undefined when it never does. */
function pastTokenLimit(text: string): number | undefined {
  let count = 0;
  let offset = 0;
  for (const lexeme of new Lexer().lex(text)) {
    if (++count > MAX_YAML_TOKENS) return offset;
    if (!LEXER_MARKERS.has(lexeme)) offset += lexeme.length;
  }
  return undefined;
}

/** line:column of an offset, counted on the text itself (before a LineCounter has seen it). */
export function positionInText(text: string, offset: number): Position {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** The offset of the first collection nested deeper than MAX_NESTING, in document order. */
function firstTooDeep(tokens: Iterable<CST.Token>): number | undefined {
  const stack: { token: CST.Token; depth: number }[] = [];
  const push = (token: CST.Token | null | undefined, depth: number) => {
    if (token) stack.push({ token, depth });
  };
  for (const token of tokens) {
    push(token, 0);
    while (stack.length > 0) {
      const { token: next, depth } = stack.pop()!;
      if (next.type === 'document') push(next.value, depth);
      else if (next.type === 'block-map' || next.type === 'block-seq' || next.type === 'flow-collection') {
        if (depth + 1 > MAX_NESTING) return next.offset;
        // Pushed last item first, so the first is looked at first.
        for (let i = next.items.length - 1; i >= 0; i--) {
          const item: CST.CollectionItem = next.items[i]!;
          push(item.value, depth + 1);
          push(item.key, depth + 1);
        }
      }
    }
  }
  return undefined;
}

interface StructureProblem {
  offset: number;
  message: string;
  code: string;
}

const startOfNode = (node: { range?: readonly number[] | null } | null | undefined): number => node?.range?.[0] ?? 0;

/**
 * Duplicate keys, NUL characters, and what aliases would do to the data: one walk in document order.
 * An alias refers to the last anchor of its name before it; an anchored node that is still open (an
 * ancestor) makes a cycle. Heights (how deep a node's data goes, aliases followed) are known for every
 * finished node, and an alias's target is always finished, so the walk needs no recursion into them.
 */
function structureProblems(doc: Document.Parsed): StructureProblem[] {
  const check = new StructureCheck();
  check.nulCheck(doc.contents, 'value');
  check.visit(doc.contents, 0);
  return check.problems;
}

/** The walk's state: what it has found, the anchors seen so far, the finished nodes' heights, the open ones. */
class StructureCheck {
  readonly problems: StructureProblem[] = [];
  private readonly anchors = new Map<string, Node>();
  private readonly heights = new Map<unknown, number>();
  private readonly open = new Set<unknown>();
  private aliases = 0;

  /** The node's height; `depth` is how many collections enclose it. */
  visit(node: unknown, depth: number): number {
    if (isAlias(node)) return this.visitAlias(node, depth);
    if (!isMap(node) && !isSeq(node)) {
      if (isScalar(node) && node.anchor) this.anchors.set(node.anchor, node);
      return 0;
    }
    if (node.anchor) this.anchors.set(node.anchor, node);
    this.open.add(node);
    const height = isMap(node) ? this.visitPairs(node, depth) : this.visitItems(node, depth);
    this.open.delete(node);
    this.heights.set(node, height + 1);
    return height + 1;
  }

  nulCheck(node: unknown, what: 'key' | 'value'): void {
    if (isScalar(node) && typeof node.value === 'string' && node.value.includes('\u0000')) {
      this.problems.push({
        offset: startOfNode(node),
        code: 'nul-character',
        message: `this ${what} holds a NUL character (\\0): not allowed anywhere in an experiment (a command, header or file name would end there)`,
      });
    }
  }

  /** The height of the alias's target; an unknown alias or a cycle counts as a leaf. */
  private visitAlias(node: Alias, depth: number): number {
    this.aliases++;
    if (this.aliases === MAX_ALIASES + 1) {
      this.problems.push({
        offset: startOfNode(node),
        code: 'too-many-aliases',
        message: `more than ${MAX_ALIASES} aliases: an experiment needs a few; write the values out`,
      });
    }
    const target = this.anchors.get(node.source);
    if (target === undefined) {
      this.problems.push({ offset: startOfNode(node), code: 'yaml-syntax', message: `YAML syntax: unknown alias *${node.source}` });
      return 0;
    }
    if (this.open.has(target)) {
      this.problems.push({
        offset: startOfNode(node),
        code: 'alias-cycle',
        message: `alias *${node.source} is inside the node it refers to: the data would contain itself`,
      });
      return 0;
    }
    aliasTargets.set(node, target);
    const height = this.heights.get(target) ?? 0;
    if (depth + height > MAX_NESTING) {
      this.problems.push({
        offset: startOfNode(node),
        code: 'too-deep',
        message: `alias *${node.source} nests the data deeper than ${MAX_NESTING} levels of mappings and lists`,
      });
    }
    return height;
  }

  /** The tallest key or value of a mapping, its duplicate keys reported on the way. */
  private visitPairs(map: YAMLMap, depth: number): number {
    let height = 0;
    const keys = new Set<unknown>();
    for (const pair of map.items) {
      if (isScalar(pair.key)) {
        // yaml's own rule: scalar keys are the same when their values are (===).
        if (keys.has(pair.key.value))
          this.problems.push({ offset: startOfNode(pair.key), code: 'yaml-syntax', message: 'YAML syntax: Map keys must be unique' });
        keys.add(pair.key.value);
      }
      this.nulCheck(pair.key, 'key');
      this.nulCheck(pair.value, 'value');
      height = Math.max(height, this.visit(pair.key, depth + 1), this.visit(pair.value, depth + 1));
    }
    return height;
  }

  private visitItems(seq: YAMLSeq, depth: number): number {
    let height = 0;
    for (const item of seq.items) {
      this.nulCheck(item, 'value');
      height = Math.max(height, this.visit(item, depth + 1));
    }
    return height;
  }
}

/** A key as the data has it: a collection key is stringified the way toJS() stringifies it. */
function keyName(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  if (key === null || key === undefined) return undefined;
  return String(key);
}

/** Each alias's target, as structureProblems found it (yaml's own resolve walks the whole document). */
const aliasTargets = new WeakMap<Alias, Node>();

function deref(node: unknown, doc: Document): unknown {
  return isAlias(node) ? (aliasTargets.get(node) ?? node.resolve(doc)) : node;
}

interface Step {
  key?: Node;
  value: unknown;
}

/** Each mapping's first pair per key name, built once per mapping: locating stays linear in the file. */
const pairsByKey = new WeakMap<YAMLMap, Map<string, Pair>>();

function pairNamed(map: YAMLMap, name: string): Pair | undefined {
  let index = pairsByKey.get(map);
  if (!index) {
    index = new Map();
    for (const pair of map.items) {
      const key = isPair(pair) ? keyName(pair.key) : undefined;
      if (key !== undefined && !index.has(key)) index.set(key, pair);
    }
    pairsByKey.set(map, index);
  }
  return index.get(name);
}

/** Walk the path as far as the file has it; the last step is the deepest node found. */
function walk(source: YamlSource, path: readonly PathSegment[]): Step[] {
  const steps: Step[] = [{ value: source.doc.contents }];
  let current: unknown = source.doc.contents;
  for (const segment of path) {
    current = deref(current, source.doc);
    if (isMap(current)) {
      const pair = pairNamed(current, String(segment));
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
