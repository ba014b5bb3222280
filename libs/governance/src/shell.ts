// A small, forgiving shell parser for governance: it turns a command line into pipelines of simple
// commands (argv words with quotes removed, redirections, command/process substitutions, subshell
// groups and heredoc bodies) so the destructive tier matches what would run, not how it was spelled.
// It never throws: unbalanced quotes or parentheses simply end at the end of the input.

import { ansiC, isSpace, literal, matchParen } from './shell-text.ts';

export { restoreLiterals } from './shell-text.ts';

export interface Redirect {
  op: string;
  /** The target word, or a heredoc / here-string body. */
  target: string;
}

export interface SimpleCommand {
  argv: string[];
  redirects: Redirect[];
  /** Scripts found inside `$(…)`, backticks, `<(…)` and `>(…)` in this command's words. */
  substitutions: ShellScript[];
  /** A `( … )` subshell or `{ …; }` group standing where a command would. */
  group?: ShellScript;
  /** The command's text as written (heredoc bodies excluded): what a bypass pattern is matched against. */
  raw: string;
  /** Per argv word: whether it holds an unquoted expansion, so its value splits into words. */
  split?: boolean[];
  /** Per argv word: whether it holds an unquoted `{`, so a brace list in it becomes several words. */
  braces?: boolean[];
}

export interface Pipeline {
  commands: SimpleCommand[];
  raw: string;
  /** Ended by a lone `&`: it runs in the background while the script goes on. */
  background?: true;
}

export interface ShellScript {
  raw: string;
  pipelines: Pipeline[];
}

const MAX_DEPTH = 8;

class Parser {
  private i = 0;
  private readonly pipelines: Pipeline[] = [];
  private pipeline: SimpleCommand[] = [];
  private cmd: SimpleCommand = { argv: [], redirects: [], substitutions: [], raw: '', split: [], braces: [] };
  private wordSplits = false;
  private wordBraces = false;
  private cmdStart = -1;
  private pipelineStart = -1;
  /** Just past the last character of command text (operators and heredoc bodies excluded). */
  private textEnd = 0;
  private word: string | null = null;
  private pendingRedirect: string | null = null;
  private readonly heredocs: { redirect: Redirect; delimiter: string; stripTabs: boolean }[] = [];

  constructor(
    private readonly src: string,
    private readonly depth: number,
  ) {}

  parse(): ShellScript {
    const { src } = this;
    while (this.i < src.length) {
      const c = src[this.i]!;
      if (isSpace(c)) {
        this.endWord();
        this.i++;
      } else if (c === '\n') {
        this.endWord();
        this.i++;
        this.readHeredocBodies();
        this.endPipeline();
      } else if (c === '#' && this.word === null) {
        while (this.i < src.length && src[this.i] !== '\n') this.i++;
      } else if (c === ';' || c === '&' || c === '|') {
        this.operator(c);
      } else if (c === '(' && this.isFunctionParens()) {
        // `name()` / `name ()` of a function definition: the body that follows is parsed as commands.
        this.word = null;
        if (this.cmd.argv.length === 1) this.cmd.argv.pop();
        this.i = this.src.indexOf(')', this.i) + 1;
      } else {
        this.markStart();
        this.commandChar(c);
        this.textEnd = this.i;
      }
    }
    this.endWord();
    this.readHeredocBodies();
    this.endPipeline();
    return { raw: src, pipelines: this.pipelines };
  }

  private commandChar(c: string): void {
    const { src } = this;
    if ((c === '<' || c === '>') && src[this.i + 1] === '(') {
      this.substitution(this.i + 2, `${c}(`);
    } else if (c === '<' || c === '>') {
      this.redirect();
    } else if (c === '(' && this.word === null && this.cmd.argv.length === 0) {
      const end = matchParen(src, this.i + 1);
      this.cmd.group = this.child(src.slice(this.i + 1, end));
      this.i = end + 1;
    } else if (c === ')' || c === '(') {
      // A stray parenthesis: a word boundary, nothing more.
      this.endWord();
      this.i++;
    } else {
      this.wordChar(c);
    }
  }

  /** Records where the current command (and pipeline) starts. */
  private markStart(): void {
    if (this.cmdStart === -1) this.cmdStart = this.i;
    if (this.pipelineStart === -1) this.pipelineStart = this.i;
  }

  private isFunctionParens(): boolean {
    const named =
      (this.word !== null && /^[A-Za-z_][\w.:-]*$/.test(this.word) && this.cmd.argv.length === 0) ||
      (this.word === null && this.cmd.argv.length === 1 && /^[A-Za-z_][\w.:-]*$/.test(this.cmd.argv[0]!));
    return named && /^\(\s*\)/.test(this.src.slice(this.i));
  }

  private child(text: string): ShellScript {
    return this.depth >= MAX_DEPTH ? { raw: text, pipelines: [] } : new Parser(text, this.depth + 1).parse();
  }

  private append(text: string): void {
    this.word = (this.word ?? '') + text;
  }

  private wordChar(c: string): void {
    const { src } = this;
    if (c === '\\') {
      if (src[this.i + 1] === '\n') this.i += 2;
      else {
        this.append(literal(src[this.i + 1] ?? ''));
        this.i += 2;
      }
    } else if (c === "'") {
      const end = src.indexOf("'", this.i + 1);
      const stop = end === -1 ? src.length : end;
      this.append(literal(src.slice(this.i + 1, stop)));
      this.i = stop + 1;
    } else if (c === '"') {
      this.doubleQuoted();
    } else if (c === '$' && src[this.i + 1] === '"') {
      // `$"…"`: bash's translated string, a double-quoted one when no catalog translates it.
      this.i++;
      this.doubleQuoted();
    } else if (c === '$' && src[this.i + 1] === "'") {
      let j = this.i + 2;
      while (j < src.length && src[j] !== "'") j += src[j] === '\\' ? 2 : 1;
      this.append(literal(ansiC(src.slice(this.i + 2, j))));
      this.i = j + 1;
    } else if (c === '$' && src[this.i + 1] === '(' && src[this.i + 2] !== '(') {
      this.wordSplits = true;
      this.substitution(this.i + 2, '$(');
    } else if (c === '`') {
      this.wordSplits = true;
      this.backtick();
    } else if (c === '$' && src[this.i + 1] === '{') {
      this.wordSplits = true;
      const end = src.indexOf('}', this.i + 2);
      const stop = end === -1 ? src.length : end;
      this.append(src.slice(this.i, stop + 1));
      this.i = stop + 1;
    } else {
      if (c === '$') this.wordSplits = true;
      if (c === '{') this.wordBraces = true;
      this.append(c);
      this.i++;
    }
  }

  private doubleQuoted(): void {
    const { src } = this;
    this.append('');
    this.i++;
    while (this.i < src.length && src[this.i] !== '"') {
      const c = src[this.i]!;
      const next = src[this.i + 1];
      if (c === '\\' && next !== undefined && '"\\$`\n'.includes(next)) {
        if (next !== '\n') this.append(literal(next));
        this.i += 2;
      } else if (c === '$' && src[this.i + 1] === '(' && src[this.i + 2] !== '(') {
        this.substitution(this.i + 2, '$(');
      } else if (c === '`') {
        this.backtick();
      } else {
        this.append(c);
        this.i++;
      }
    }
    this.i++;
  }

  private substitution(innerStart: number, opener: string): void {
    const end = matchParen(this.src, innerStart);
    const inner = this.src.slice(innerStart, end);
    this.cmd.substitutions.push(this.child(inner));
    this.append(`${opener}${inner})`);
    this.i = end + 1;
  }

  private backtick(): void {
    let j = this.i + 1;
    while (j < this.src.length && this.src[j] !== '`') j += this.src[j] === '\\' ? 2 : 1;
    const inner = this.src.slice(this.i + 1, j);
    this.cmd.substitutions.push(this.child(inner));
    this.append(`\`${inner}\``);
    this.i = j + 1;
  }

  private redirect(): void {
    const { src } = this;
    // A word made only of digits right before the operator is a file descriptor (`2>`), not an arg.
    if (this.word !== null && /^\d+$/.test(this.word)) this.word = null;
    this.endWord();
    const m = /^(<<<|<<-|<<|<>|<&|>>|>&|>\||&>|<|>)/.exec(src.slice(this.i))!;
    this.i += m[1]!.length;
    this.pendingRedirect = m[1]!;
  }

  private operator(c: string): void {
    const { src } = this;
    const two = src.slice(this.i, this.i + 2);
    if (c === '&' && src[this.i + 1] === '>') {
      this.endWord();
      this.i += src[this.i + 2] === '>' ? 3 : 2;
      this.pendingRedirect = '&>';
      return;
    }
    this.endWord();
    if (two === '&&' || two === '||' || two === ';;') {
      this.i += 2;
      this.endPipeline();
    } else if (c === '|') {
      this.i += src[this.i + 1] === '&' ? 2 : 1;
      this.endCommand();
    } else {
      this.i++;
      this.endPipeline(c === '&');
    }
  }

  private endWord(): void {
    if (this.word === null) return;
    const word = this.word;
    const splits = this.wordSplits;
    const braces = this.wordBraces;
    this.word = null;
    this.wordSplits = false;
    this.wordBraces = false;
    if (this.pendingRedirect !== null) {
      const op = this.pendingRedirect;
      this.pendingRedirect = null;
      const redirect: Redirect = { op, target: word };
      this.cmd.redirects.push(redirect);
      if (op === '<<' || op === '<<-') this.heredocs.push({ redirect, delimiter: word, stripTabs: op === '<<-' });
      return;
    }
    this.cmd.argv.push(word);
    this.cmd.split!.push(splits);
    this.cmd.braces!.push(braces);
  }

  private readHeredocBodies(): void {
    while (this.heredocs.length > 0) {
      const { redirect, delimiter, stripTabs } = this.heredocs.shift()!;
      const lines: string[] = [];
      while (this.i < this.src.length) {
        const nl = this.src.indexOf('\n', this.i);
        const stop = nl === -1 ? this.src.length : nl;
        const line = this.src.slice(this.i, stop);
        this.i = stop + 1;
        if ((stripTabs ? line.replace(/^\t+/, '') : line) === delimiter) break;
        lines.push(line);
      }
      redirect.target = lines.join('\n');
    }
  }

  private endCommand(): void {
    this.endWord();
    const { cmd } = this;
    cmd.raw = this.cmdStart === -1 ? '' : this.src.slice(this.cmdStart, Math.max(this.cmdStart, this.textEnd)).trim();
    this.cmdStart = -1;
    if (cmd.argv.length > 0 || cmd.redirects.length > 0 || cmd.substitutions.length > 0 || cmd.group) this.pipeline.push(cmd);
    this.cmd = { argv: [], redirects: [], substitutions: [], raw: '', split: [], braces: [] };
  }

  private endPipeline(background = false): void {
    this.endCommand();
    const raw = this.pipelineStart === -1 ? '' : this.src.slice(this.pipelineStart, Math.max(this.pipelineStart, this.textEnd)).trim();
    this.pipelineStart = -1;
    if (this.pipeline.length > 0) this.pipelines.push({ commands: this.pipeline, raw, ...(background ? { background: true as const } : {}) });
    this.pipeline = [];
  }
}

export function parseShell(src: string): ShellScript {
  return new Parser(src, 0).parse();
}
