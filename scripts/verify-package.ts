/**
 * The package as a new user gets it (too slow and too networked for `npm test`): packs it (prepack builds the
 * addon), installs the tarball into an empty project with npm's default config (HOME is an empty folder, so no
 * ~/.npmrc applies; the npm registry must be reachable), then checks that nothing compiled, measures the time and
 * node_modules, type-checks and runs a strict-TypeScript consumer (scoring and generation), type-checks the README's
 * library examples, require()s it from CommonJS, and runs the CLI from the installed package.
 * The consumer's logliks are compared with the independent path (onnxruntime-node JS, test/support). Usage:
 *   npx tsx scripts/verify-package.ts [--tarball FILE] [--keep]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadModel } from '../src/model/onnx-model.js';
import { writeTinyCausalLm } from '../test/support/model-builders/tiny-causal-lm.js';
import { writeTinyBlimp } from '../test/support/tiny-datasets.js';
import { createReferenceScorer } from '../test/support/reference-scorer.js';

const SIZE_LIMIT_MB = 300;
const LOGLIK_TOLERANCE = 1e-4;
const REQUESTS = [
  { taskName: 't', docId: 0, choiceIndex: 0, context: 'the cat sat on the', continuation: ' mat' },
  { taskName: 't', docId: 0, choiceIndex: 1, context: 'the cat sat on the', continuation: ' dog ran' },
];
const GENERATION_PROMPTS = ['the cat sat on the', 'a dog'];

const { values } = parseArgs({ options: { tarball: { type: 'string' }, keep: { type: 'boolean', default: false } } });
const repoRoot = path.resolve(import.meta.dirname, '..');
const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-verify-package-'));
const home = path.join(workDir, 'home');
const project = path.join(workDir, 'consumer');
for (const dir of [home, project]) mkdirSync(dir);
// npm's default config: no user .npmrc, no npm_config_* from a parent `npm run`.
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
Object.assign(env, { HOME: home, npm_config_update_notifier: 'false' });
const failures: string[] = [];
const check = (ok: boolean, what: string): void => {
  if (!ok) failures.push(what);
};

function run(command: string, args: readonly string[], cwd: string): { stdout: string; stderr: string; seconds: number } {
  const started = performance.now();
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}${result.stderr}`);
  return { stdout: result.stdout, stderr: result.stderr, seconds };
}

function pack(): string {
  const out = path.join(workDir, 'pack');
  mkdirSync(out);
  execFileSync('npm', ['pack', '--pack-destination', out], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  const [file] = readdirSync(out);
  if (file === undefined) throw new Error('npm pack wrote no tarball');
  return path.join(out, file);
}

const tarball = values.tarball !== undefined ? path.resolve(values.tarball) : pack();
run('npm', ['init', '-y'], project);
run('npm', ['pkg', 'set', 'type=module'], project);
const install = run('npm', ['install', tarball], project);
const installed = path.join(project, 'node_modules', 'mlrb-eval');
const nodeModulesMb = Number(execFileSync('du', ['-sk', path.join(project, 'node_modules')], { encoding: 'utf8' }).split('\t')[0]) / 1024;
const npmWarnings = install.stderr.split('\n').filter((line) => line.startsWith('npm warn'));
check(nodeModulesMb < SIZE_LIMIT_MB, `node_modules is ${nodeModulesMb.toFixed(0)} MB, not under ${SIZE_LIMIT_MB} MB`);
check(!existsSync(path.join(installed, 'build')), 'the install built the addon (node_modules/mlrb-eval/build exists)');
check(!/cmake|node-gyp|gyp info/i.test(install.stdout + install.stderr), 'the install output mentions cmake or node-gyp');
check(!existsSync(path.join(project, 'node_modules', 'onnxruntime-node')), 'onnxruntime-node was installed');

// Fixtures written by this checkout; the consumer only reads them.
const { modelPath } = writeTinyCausalLm(path.join(project, 'fixture', 'model'));
const dataDir = writeTinyBlimp(path.join(project, 'fixture', 'blimp'));

// The strict consumer, type-checked against the installed declarations (skipLibCheck off). Its compiler comes
// after the measurement, at the versions this repository builds with.
const devVersions = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies;
run('npm', ['install', '--no-save', `typescript@${devVersions.typescript}`, `@types/node@${devVersions['@types/node']}`], project);
// The library examples of the README and docs/, as the installed package has them, type-check too (they are not
// run here: they name models and data of their own; test/docs/doc-examples.e2e.test.ts runs the README's).
const documented = [
  'README.md',
  ...readdirSync(path.join(installed, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join('docs', name)),
];
const readmeExamples = documented
  .flatMap((doc) => [...readFileSync(path.join(installed, doc), 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm)])
  .map((match, index) => {
    const file = `readme-example-${index + 1}.ts`;
    writeFileSync(path.join(project, file), match[1] ?? '');
    return file;
  });
check(readmeExamples.length > 0, 'the installed README has no ```ts example');
writeFileSync(
  path.join(project, 'tsconfig.json'),
  JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: false,
      types: ['node'],
      outDir: 'out',
    },
    files: ['consumer.ts', ...readmeExamples],
  }),
);
writeFileSync(
  path.join(project, 'consumer.ts'),
  `import { readFileSync } from 'node:fs';
import { evaluate, generate, loadModel, scoreRequests, type EvaluateOptions, type LoglikelihoodRequest } from 'mlrb-eval';

const options: EvaluateOptions = { model: ${JSON.stringify(modelPath)}, suite: 'blimp', dataDir: ${JSON.stringify(dataDir)}, allowPartial: true };
const { results } = await evaluate(options);
const requests: LoglikelihoodRequest[] = ${JSON.stringify(REQUESTS)};
const model = await loadModel({ model: options.model });
const logliks: number[] = (await scoreRequests(model, requests)).results.map((result) => result.loglik);
model.dispose();
const generated: number[][] = (await generate({ model: options.model, prompts: GENERATION_PROMPTS, maxNewTokens: 4 })).generations.map((generation) => [...generation.tokenIds]);
const ortLibraries = readFileSync('/proc/self/maps', 'utf8').split('\\n').filter((line) => line.includes('libonnxruntime')).map((line) => line.split(/\\s+/).at(-1));
console.log(JSON.stringify({ ortVersion: results.mlrb.ort_version, results: results.results, logliks, generated, ortLibraries: [...new Set(ortLibraries)] }));
`.replace('GENERATION_PROMPTS', JSON.stringify(GENERATION_PROMPTS)),
);
const typecheck = run(path.join(project, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], project);
interface ConsumerReport {
  ortVersion: string;
  results: Record<string, Record<string, unknown>>;
  logliks: number[];
  generated: number[][];
  ortLibraries: string[];
}
const consumer = JSON.parse(run('node', ['out/consumer.js'], project).stdout) as ConsumerReport;
check(consumer.ortVersion === devVersions['onnxruntime-node'], `the consumer ran ORT ${consumer.ortVersion}`);
const shippedOrt = path.join(installed, 'prebuilds', 'linux-x64', 'libonnxruntime.so.1');
check(
  consumer.ortLibraries.length === 1 && consumer.ortLibraries[0] === shippedOrt,
  `the consumer loaded ${consumer.ortLibraries.join(', ')}, not ${shippedOrt}`,
);

// The consumer's logliks against the independent path; tokens from this checkout's tokenizer.
const reference = await createReferenceScorer(modelPath);
const tokenizer = (await loadModel({ model: modelPath })).requireTokenizer();
const expected = await Promise.all(
  REQUESTS.map(async ({ context, continuation }) => {
    const [contextTokens, continuationTokens] = [tokenizer.encode(context), tokenizer.encode(continuation)];
    return (await reference.scoreTokens([...contextTokens, ...continuationTokens].slice(0, -1), continuationTokens)).loglik;
  }),
);
await reference.dispose();
const maxAbsDiff = Math.max(...consumer.logliks.map((loglik, index) => Math.abs(loglik - (expected[index] ?? Number.NaN))));
check(consumer.logliks.length === REQUESTS.length && maxAbsDiff < LOGLIK_TOLERANCE, `consumer logliks differ from the reference by ${maxAbsDiff}`);

// CommonJS consumers: Node ≥ 20.19 / 22.12 can require() the package's ES modules (the `default` export condition).
writeFileSync(path.join(project, 'require-check.cjs'), "const m = require('mlrb-eval');\nconsole.log(typeof m.evaluate);\n");
const required = run('node', ['require-check.cjs'], project).stdout.trim();
check(required === 'function', `require('mlrb-eval') from CommonJS gave evaluate as ${required}`);

// The CLI from the installed package: the same suite, the same accuracy.
const help = run('npx', ['mlrb-eval', '--help'], project);
check(help.stdout.includes('usage: mlrb-eval'), 'mlrb-eval --help printed no usage');
const cliOutput = path.join(project, 'cli-results.json');
run('npx', ['mlrb-eval', modelPath, '--suite', 'blimp', '--data', dataDir, '--allow-partial', '--quiet', '--output', cliOutput], project);
const cliResults = (JSON.parse(readFileSync(cliOutput, 'utf8')) as { results: unknown }).results;
check(JSON.stringify(cliResults) === JSON.stringify(consumer.results), 'the CLI and the library disagree on the results');

// Generation from the installed package: the library's greedy ids equal the installed CLI's.
const cliGeneration = path.join(project, 'cli-generation.json');
run(
  'npx',
  ['mlrb-eval', 'generate', modelPath, ...GENERATION_PROMPTS.flatMap((prompt) => ['--prompt', prompt]), '--max-new-tokens', '4', '--output', cliGeneration],
  project,
);
const cliIds = (JSON.parse(readFileSync(cliGeneration, 'utf8')) as { generations: { tokenIds: number[] }[] }).generations.map(
  (generation) => generation.tokenIds,
);
check(consumer.generated.length === GENERATION_PROMPTS.length && consumer.generated.every((ids) => ids.length > 0), 'the consumer generated nothing');
check(JSON.stringify(cliIds) === JSON.stringify(consumer.generated), 'the CLI and the library generated different ids');

console.log(
  JSON.stringify(
    {
      tarball,
      installSeconds: Number(install.seconds.toFixed(1)),
      nodeModulesMb: Number(nodeModulesMb.toFixed(1)),
      npmWarnings,
      typecheckSeconds: Number(typecheck.seconds.toFixed(1)),
      readmeExamplesTypeChecked: readmeExamples.length,
      ortVersion: consumer.ortVersion,
      ortLibraries: consumer.ortLibraries,
      maxAbsDiffFromReference: maxAbsDiff,
      failures,
    },
    null,
    2,
  ),
);
if (values.keep) console.log(`kept ${workDir}`);
else rmSync(workDir, { recursive: true, force: true });
process.exitCode = failures.length === 0 ? 0 : 1;
