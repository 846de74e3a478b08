/**
 * The code blocks of the README and docs/*.md, and the commands in their shell blocks, read as a shell reads
 * them: quotes (also across lines), backslash-newline continuations, comments, and `;`, `&&`, `||`, `|` and
 * newlines between commands. Enough of a shell for documentation, which is where it is used.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { verbatimMarkerFile } from '../../scripts/docs/verbatim-blocks.js';

export interface CodeBlock {
  /** The file, relative to the repository. */
  readonly file: string;
  /** The line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  readonly text: string;
  /** The file the block shows byte for byte (a `<!-- verbatim: PATH -->` line above it), if it is one. */
  readonly verbatimOf?: string;
}

export interface ShellCommand {
  readonly block: CodeBlock;
  /** Leading NAME=value assignments. */
  readonly env: Readonly<Record<string, string>>;
  /** The command's words, quotes removed. */
  readonly words: readonly string[];
  /** As written (for messages). */
  readonly source: string;
}

/** Every fenced block of the README and docs/*.md, in file order. */
export function documentationBlocks(repoRoot: string): CodeBlock[] {
  const files = [
    'README.md',
    ...readdirSync(path.join(repoRoot, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `docs/${name}`),
  ];
  return files.flatMap((file) => codeBlocks(file, readFileSync(path.join(repoRoot, file), 'utf8')));
}

export function codeBlocks(file: string, markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[index] ?? '');
    if (open === null) continue;
    const indent = open[1]?.length ?? 0;
    const body: string[] = [];
    let end = index + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end] ?? '')) body.push((lines[end] ?? '').slice(indent)), (end += 1);
    const verbatimOf = index > 0 ? verbatimMarkerFile(lines[index - 1] ?? '') : undefined;
    blocks.push({ file, line: index + 1, lang: open[2] ?? '', text: body.join('\n'), ...(verbatimOf === undefined ? {} : { verbatimOf }) });
    index = end;
  }
  return blocks;
}

/**
 * A usage synopsis (`mlrb-eval MODEL [--flag N] [--a | --b] …`, continued on indented lines) rather than
 * commands: its brackets, bars and ellipses are grammar, not shell.
 */
export function isSynopsis(block: CodeBlock): boolean {
  return /\[--|…/.test(block.text);
}

/** Each `mlrb-eval …` synopsis of a block with the indented lines that continue it. */
export function synopses(block: CodeBlock): string[] {
  const entries: string[] = [];
  for (const line of block.text.split('\n')) {
    if (/^\s*mlrb-eval\b/.test(line) && !/^\s/.test(line)) entries.push(line);
    else if (/^\s+\S/.test(line) && entries.length > 0) entries[entries.length - 1] += ` ${line.trim()}`;
  }
  return entries;
}

const SEPARATORS = new Set([';', '&&', '||', '|', '\n']);

/** The commands of a shell block. */
export function shellCommands(block: CodeBlock): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let words: string[] = [];
  let start = 0;
  const finish = (end: number): void => {
    const env: Record<string, string> = {};
    while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] ?? '')) {
      const [name = '', ...value] = (words.shift() ?? '').split('=');
      env[name] = value.join('=');
    }
    if (words.length > 0) commands.push({ block, env, words, source: block.text.slice(start, end).trim() });
    words = [];
  };
  const text = block.text;
  let word: string | null = null;
  for (let at = 0; at < text.length; at += 1) {
    const char = text[at] ?? '';
    if (char === '\\' && text[at + 1] === '\n') {
      at += 1;
      continue;
    }
    // A quote that never closes is prose in a synopsis (`[eval's runtime flags]`), kept as a character.
    const close = char === "'" || char === '"' ? text.indexOf(char, at + 1) : -1;
    if (close !== -1) {
      word = (word ?? '') + text.slice(at + 1, close);
      at = close;
      continue;
    }
    if (char === '#' && word === null) {
      while (at + 1 < text.length && text[at + 1] !== '\n') at += 1;
      continue;
    }
    const two = text.slice(at, at + 2);
    const separator = SEPARATORS.has(two) ? two : SEPARATORS.has(char) ? char : null;
    if (char === ' ' || char === '\t' || separator !== null) {
      if (word !== null) words.push(word);
      word = null;
      if (separator !== null) {
        finish(at);
        at += separator.length - 1;
        start = at + 1;
      }
      continue;
    }
    word = (word ?? '') + char;
  }
  if (word !== null) words.push(word);
  finish(text.length);
  return commands;
}
