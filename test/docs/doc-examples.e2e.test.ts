/**
 * Every shell and TypeScript example in the README and docs/ is run or checked, so the documentation cannot
 * drift from the code:
 * - the README's `mlrb-eval` commands run, in order, from a copy of this folder beside `../shared`, and exit 0
 *   (the full-BLiMP set-up command in the full tier); the files the README says they write are there;
 * - every other `mlrb-eval` line (the docs' synopses, with MODEL, DIR …) names only flags its command accepts;
 * - `npm run X` names a script of package.json; a script or file run by path exists;
 * - any other command is one of the tools the docs may name (EXTERNAL_TOOLS), so a typo'd command fails here;
 * - a block that shows a file verbatim (`<!-- verbatim: PATH -->` above it) equals PATH, and is not read as commands;
 * - every `ts` block type-checks against the sources, with `mlrb-eval` resolving to src/index.ts; the README's
 *   runs, and shows its progress.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SUBCOMMAND_NAMES } from '../../src/cli/main.js';
import { documentationBlocks, isSynopsis, shellCommands, synopses, type CodeBlock, type ShellCommand } from '../support/doc-blocks.js';
import { runCli } from '../support/run-cli.js';
import { hasShared, repoRoot, sharedDir } from '../support/shared-data.js';
import { FULL_TIER } from '../support/test-tier.js';

const blocks = documentationBlocks(repoRoot);
// A block that shows a file verbatim (docs/scale-out.md's examples/) is a script, not commands to type: it must
// equal its file ('files shown verbatim' below), and that file's own tests run it.
const shellBlocks = blocks.filter((block) => block.lang === 'sh' && block.verbatimOf === undefined);
const tsBlocks = blocks.filter((block) => block.lang === 'ts');
const commands = shellBlocks.filter((block) => !isSynopsis(block)).flatMap(shellCommands);
const synopsisLines = shellBlocks.filter(isSynopsis).flatMap((block) => synopses(block).map((text) => ({ block, text })));
const where = (block: CodeBlock): string => `${block.file}:${block.line}`;

/** Tools outside this repository that the docs may name; anything else must be ours. */
const EXTERNAL_TOOLS = new Set(['cd', 'cp', 'echo', 'export', 'grep', 'hf', 'ldd', 'ls', 'mkdir', 'optimum-cli', 'python3', 'sbatch', 'tar']);
/** npm's own commands that the docs use; `npm run X` and `npm test` must name scripts. */
const NPM_COMMANDS = new Set(['ci', 'install', 'pack', 'rebuild', 'run', 'test']);
/** README commands that take minutes on 2 cores: the full tier runs them. */
const FULL_TIER_README_COMMANDS = new Set(['npx mlrb-eval ../shared/models/stories260K --tasks blimp --data ../shared/data/blimp']);

const isMlrbEval = (command: ShellCommand): boolean => command.words[0] === 'mlrb-eval' || (command.words[0] === 'npx' && command.words[1] === 'mlrb-eval');
const mlrbEvalArgs = (command: ShellCommand): string[] => command.words.slice(command.words[0] === 'npx' ? 2 : 1);

describe('the docs have examples to check', () => {
  it("finds the README's and the docs' blocks", () => {
    expect(shellBlocks.filter((block) => block.file === 'README.md').length).toBeGreaterThanOrEqual(8);
    expect(tsBlocks.some((block) => block.file === 'README.md')).toBe(true);
    expect(commands.filter(isMlrbEval).length + synopsisLines.length).toBeGreaterThan(20);
  });
});

describe('files shown verbatim', () => {
  it.each(blocks.filter((block) => block.verbatimOf !== undefined).map((block) => [`${where(block)}: ${block.verbatimOf}`, block] as const))(
    '%s equals its file',
    (_, block) => {
      const file = block.verbatimOf as string;
      expect(`${block.text}\n`, `refresh the block: npx tsx scripts/docs/verbatim-blocks.ts ${block.file}`).toBe(
        readFileSync(path.join(repoRoot, file), 'utf8'),
      );
    },
  );
});

describe('shell examples', () => {
  const packageScripts = Object.keys((JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);

  it.each(commands.filter((command) => !isMlrbEval(command)).map((command) => [`${where(command.block)}: ${command.source.split('\n')[0]}`, command] as const))(
    '%s',
    (_, command) => {
      const [tool = '', ...args] = command.words;
      if (tool === 'npm') {
        expect(NPM_COMMANDS.has(args[0] ?? ''), `npm ${args[0]}`).toBe(true);
        if (args[0] === 'run') expect(packageScripts, `npm run ${args[1]}`).toContain(args[1]);
        if (args[0] === 'test') expect(packageScripts).toContain('test');
        return;
      }
      const script = ['npx', 'node', 'bash'].includes(tool) ? args.find((arg) => !arg.startsWith('-') && arg !== 'tsx') : tool.includes('/') ? tool : undefined;
      if (script !== undefined && !script.startsWith('/') && !script.startsWith('~')) {
        expect(existsSync(path.join(repoRoot, script)), `${script} exists`).toBe(true);
        return;
      }
      // A Python given by path (a venv's) runs a script of ours, which must exist.
      if (tool.startsWith('/') && /python/.test(tool)) {
        const ours = args.find((arg) => arg.startsWith('scripts/'));
        if (ours !== undefined) expect(existsSync(path.join(repoRoot, ours)), `${ours} exists`).toBe(true);
        return;
      }
      expect(EXTERNAL_TOOLS.has(tool), `"${tool}" is neither ours nor a tool the docs may name`).toBe(true);
    },
  );

  const docsLines = [
    ...commands
      .filter((command) => isMlrbEval(command) && command.block.file !== 'README.md')
      .map((command) => ({ block: command.block, text: command.source })),
    ...synopsisLines,
  ];
  it.each(docsLines.map((line) => [`${where(line.block)}: ${line.text.slice(0, 80)}`, line] as const))(
    '%s: every flag is one its command takes',
    async (_, line) => {
      const [, first = ''] = line.text.replace(/^npx /, '').trim().split(/\s+/);
      const subcommand = SUBCOMMAND_NAMES.includes(first) ? [first] : [];
      const flags = [...new Set(line.text.match(/--[a-z][a-z0-9_-]*/g) ?? [])].filter((flag) => flag !== '--help' && flag !== '--version');
      expect(flags.length, 'a command line without flags checks nothing').toBeGreaterThan(0);
      for (const flag of flags) {
        // A flag the parser does not know is refused first, by name; a known one fails on the probe after it.
        const run = await runCli([...subcommand, flag, '--mlrb-doc-probe']);
        expect(run.code).toBe(2);
        expect(run.stderr, `${flag} of mlrb-eval ${subcommand[0] ?? 'MODEL'}`).not.toContain(`unknown flag ${flag}\n`);
      }
    },
  );
});

describe.runIf(hasShared)("the README's commands, run in order beside ../shared", () => {
  const readmeCommands = commands.filter((command) => command.block.file === 'README.md' && isMlrbEval(command));
  let sandbox = '';
  let previousDirectory = '';
  beforeAll(() => {
    // The README's relative paths: ../shared beside the clone, docs/ and test/ in it; outputs land in the copy.
    const root = mkdtempSync(path.join(tmpdir(), 'mlrb-readme-'));
    sandbox = path.join(root, 'repo');
    mkdirSync(sandbox);
    symlinkSync(sharedDir, path.join(root, 'shared'));
    for (const folder of ['docs', 'test']) symlinkSync(path.join(repoRoot, folder), path.join(sandbox, folder));
    previousDirectory = process.cwd();
    process.chdir(sandbox);
  });
  afterAll(() => {
    process.chdir(previousDirectory);
    rmSync(path.dirname(sandbox), { recursive: true, force: true });
  });

  for (const command of readmeCommands) {
    const line = command.words.join(' ');
    it.runIf(FULL_TIER || !FULL_TIER_README_COMMANDS.has(line))(`${where(command.block)}: ${line}`, async () => {
      const run = await runCli(mlrbEvalArgs(command));
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.length + run.stderr.length).toBeGreaterThan(0);
    });
  }

  it('wrote what the README says they write', () => {
    for (const written of ['results/shared__models__stories260K', 'runs/efficiency.json', 'report/report.html', 'blimp-merged.json']) {
      expect(existsSync(path.join(sandbox, written)), written).toBe(true);
    }
  });

  it("the README's library example runs, printing each task's accuracy and its progress", async () => {
    const [example] = tsBlocks.filter((block) => block.file === 'README.md');
    const file = path.join(sandbox, 'readme-example.mts');
    writeFileSync(file, (example?.text ?? '').replaceAll("from 'mlrb-eval'", `from '${pathToFileURL(path.join(repoRoot, 'src', 'index.ts')).href}'`));
    const printed: unknown[][] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...values: unknown[]) => void printed.push(values));
    let progress = '';
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((progress += String(chunk)), true));
    try {
      await import(pathToFileURL(file).href);
    } finally {
      log.mockRestore();
      stderr.mockRestore();
    }
    expect(printed.map(([task]) => task)).toEqual(['blimp_adjunct_island', 'blimp_anaphor_gender_agreement']);
    for (const [, accuracy] of printed) expect(accuracy).toBeGreaterThan(0.3);
    // Two paradigms of 1,000 pairs, two sentences each, scored as one suite.
    expect(progress).toMatch(/\rblimp: \d+\/4000 requests/);
    expect(progress).toContain('\rblimp: 4000/4000 requests\n');
  });
});

describe('TypeScript examples type-check against the sources', () => {
  it('every ts block of the README and docs/', () => {
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2023.d.ts'],
      types: ['node'],
      strict: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: true,
      noEmit: true,
      baseUrl: repoRoot,
      paths: { 'mlrb-eval': ['src/index.ts'] },
    };
    // Each block is a module of its own beside the sources (.mts: ES module, so top-level await is allowed).
    const virtual = new Map(
      tsBlocks.map((block, index) => [path.join(repoRoot, 'docs-examples', `${index}-${path.basename(block.file, '.md')}.mts`), block] as const),
    );
    const host = ts.createCompilerHost(options);
    const readFile = host.readFile.bind(host);
    const fileExists = host.fileExists.bind(host);
    host.readFile = (file) => virtual.get(path.resolve(file))?.text ?? readFile(file);
    host.fileExists = (file) => virtual.has(path.resolve(file)) || fileExists(file);
    const program = ts.createProgram([...virtual.keys()], options, host);
    const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const block = diagnostic.file === undefined ? undefined : virtual.get(path.resolve(diagnostic.file.fileName));
      const at = diagnostic.file !== undefined && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1 : 0;
      const place = block === undefined ? (diagnostic.file?.fileName ?? '') : `${block.file}:${block.line + at}`;
      return `${place}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
    expect(problems).toEqual([]);
    expect(virtual.size).toBe(tsBlocks.length);
  });
});
