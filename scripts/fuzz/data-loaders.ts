/**
 * Fuzzes the readers of files from other hands for SECONDS: the suite loaders (MMLU CSV, BLiMP JSONL, SuperGLUE
 * JSONL) with mutated rows, each input a suite folder holding one mutated file, loaded with allowPartial; and the
 * readers of run records, shard files and the cache's files (reader-targets.ts), each given one mutated file.
 * The readers' contracts are the finding's definition: a loader refuses what it cannot use with an MlrbError
 * naming the file (and never quoting it); a cache reader never fails and never serves another value than the
 * one stored (reader-targets.ts). Anything else thrown, or a read slower than a few seconds, is a finding,
 * printed with its input saved.
 *   npx tsx scripts/fuzz/data-loaders.ts [SECONDS] [SEED] [--shared DIR]
 * Seeds: the first rows of ../shared's files when present, else small made-up rows in the same layouts; for the
 * other readers, sound files written by the code that writes them.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isMlrbError } from '../../src/errors.js';
import { loadSuite } from '../../src/tasks/registry.js';
import { readerTargets, type ReaderTarget } from './reader-targets.js';

type SuiteSeed = { readonly suite: 'mmlu' | 'blimp' | 'boolq'; readonly file: string; readonly text: string };

const [secondsArg, seedArg] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const seconds = Number(secondsArg ?? 60);
let state = BigInt(seedArg ?? 1) || 1n;
const sharedFlag = process.argv.indexOf('--shared');
const shared = sharedFlag > 0 ? process.argv[sharedFlag + 1]! : path.resolve(import.meta.dirname, '../../../shared');

/** xorshift64: a seeded stream, so a finding replays from its seed. */
function random(bound: number): number {
  state ^= state << 13n;
  state &= 0xffffffffffffffffn;
  state ^= state >> 7n;
  state ^= state << 17n;
  state &= 0xffffffffffffffffn;
  return Number(state % BigInt(bound));
}

function firstLines(file: string, count: number): string {
  return readFileSync(file, 'utf8').split('\n').slice(0, count).join('\n') + '\n';
}

function seeds(): SuiteSeed[] {
  if (existsSync(path.join(shared, 'data/mmlu/test/anatomy_test.csv'))) {
    return [
      { suite: 'mmlu', file: 'test/anatomy_test.csv', text: firstLines(path.join(shared, 'data/mmlu/test/anatomy_test.csv'), 6) },
      { suite: 'mmlu', file: 'dev/anatomy_dev.csv', text: firstLines(path.join(shared, 'data/mmlu/dev/anatomy_dev.csv'), 6) },
      { suite: 'blimp', file: 'adjunct_island.jsonl', text: firstLines(path.join(shared, 'data/blimp/adjunct_island.jsonl'), 6) },
      { suite: 'boolq', file: 'BoolQ/val.jsonl', text: firstLines(path.join(shared, 'data/superglue/BoolQ/val.jsonl'), 4) },
    ];
  }
  const blimpRow = {
    sentence_good: 'The cat sat.',
    sentence_bad: 'The cat sat the.',
    field: 'syntax',
    linguistics_term: 'island_effects',
    UID: 'adjunct_island',
    simple_LM_method: true,
    one_prefix_method: false,
    two_prefix_method: false,
    lexically_identical: false,
    pair_id: 0,
  };
  return [
    { suite: 'mmlu', file: 'test/anatomy_test.csv', text: 'Which bone is longest?,femur,ulna,rib,skull,A\n"A quoted, question?",a,b,c,d,B\n' },
    { suite: 'mmlu', file: 'dev/anatomy_dev.csv', text: 'Pick one,w,x,y,z,C\nAnother,1,2,3,4,D\n' },
    { suite: 'blimp', file: 'adjunct_island.jsonl', text: `${JSON.stringify(blimpRow)}\n${JSON.stringify({ ...blimpRow, pair_id: 1 })}\n` },
    { suite: 'boolq', file: 'BoolQ/val.jsonl', text: `${JSON.stringify({ question: 'is it so', passage: 'It is so.', idx: 0, label: true })}\n` },
  ];
}

const SPECIALS = [
  '"',
  ',',
  '\n',
  '\r\n',
  '{',
  '}',
  '[',
  ']',
  ':',
  '\\',
  '\u0000',
  '\ufeff',
  'null',
  '1e309',
  '-1',
  '99999999999999999999',
  '\u{1F600}',
  '""',
  '\t',
];

/** Byte-level edits for binary inputs (SQLite pages, token entries): flips, cuts, repeats and foreign bytes. */
function mutateBytes(bytes: Uint8Array): Uint8Array {
  let out = Buffer.from(bytes);
  const edits = 1 + random(4);
  for (let edit = 0; edit < edits; edit++) {
    const at = out.length === 0 ? 0 : random(out.length);
    switch (random(5)) {
      case 0:
        if (out.length > 0) out[at] = (out[at] ?? 0) ^ (1 << random(8));
        break;
      case 1:
        out = Buffer.concat([out.subarray(0, at), out.subarray(at + 1 + random(64))]);
        break;
      case 2:
        out = out.subarray(0, at);
        break;
      case 3:
        out = Buffer.concat([out.subarray(0, at), out.subarray(at, at + random(256)), out.subarray(at)]);
        break;
      default:
        out = Buffer.concat([out.subarray(0, at), Buffer.from(Array.from({ length: 1 + random(16) }, () => random(256))), out.subarray(at)]);
        break;
    }
  }
  return out;
}

function mutate(text: string): string {
  let out = text;
  const edits = 1 + random(4);
  for (let edit = 0; edit < edits; edit++) {
    const at = out.length === 0 ? 0 : random(out.length);
    switch (random(6)) {
      case 0:
        out = out.slice(0, at) + SPECIALS[random(SPECIALS.length)]! + out.slice(at);
        break;
      case 1:
        out = out.slice(0, at) + out.slice(at + 1 + random(16));
        break;
      case 2:
        out = out.slice(0, at);
        break;
      case 3: {
        const line = out.split('\n')[random(Math.max(1, out.split('\n').length))] ?? '';
        out = out.slice(0, at) + `${line}\n` + out.slice(at);
        break;
      }
      case 4:
        out = out.slice(0, at) + String.fromCharCode(random(0x3000)) + out.slice(at + 1);
        break;
      default:
        out = out.slice(0, at) + 'x'.repeat(random(4096)) + out.slice(at);
        break;
    }
  }
  return out;
}

const root = mkdtempSync(path.join(tmpdir(), 'mlrb-fuzz-data-'));
const findings = path.join(root, 'findings');
mkdirSync(findings);
// The cache key the cache readers use is made in this run's folder, never the user's.
process.env.XDG_STATE_HOME = path.join(root, 'state');
const pool = seeds();
const readers = readerTargets();

/** One input for a reader target: its file written and read in a fresh folder. */
async function fuzzReader(target: ReaderTarget, input: string | Uint8Array, dir: string): Promise<'read' | 'refused'> {
  try {
    await target.run(input, dir);
    return 'read';
  } catch (error) {
    if (isMlrbError(error)) return 'refused';
    throw error;
  }
}
const deadline = Date.now() + seconds * 1000;
let runs = 0;
let refusals = 0;
try {
  while (Date.now() < deadline) {
    // Half the inputs go to the suite loaders, half to the other readers.
    if (random(2) === 0) {
      const target = readers[random(readers.length)]!;
      const input = typeof target.seed === 'string' ? mutate(target.seed) : mutateBytes(target.seed);
      const dir = path.join(root, `reader-${runs % 4}`);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir);
      const started = Date.now();
      let failure: string | undefined;
      try {
        if ((await fuzzReader(target, input, dir)) === 'refused') refusals += 1;
      } catch (error) {
        failure = `${target.name}: ${String(error)}`;
      }
      if (failure === undefined && Date.now() - started > 5000) failure = `${target.name} took ${Date.now() - started} ms on one small file`;
      if (failure !== undefined) {
        const saved = path.join(findings, `finding-${runs}-${target.name.replaceAll(' ', '-')}`);
        writeFileSync(saved, input);
        console.error(`finding: ${failure}; input saved to ${saved}`);
        process.exitCode = 1;
        break;
      }
      runs += 1;
      continue;
    }
    const seed = pool[random(pool.length)]!;
    const text = mutate(seed.text);
    const dataDir = path.join(root, `case-${runs % 4}`);
    rmSync(dataDir, { recursive: true, force: true });
    for (const other of pool.filter((entry) => entry.suite === seed.suite)) {
      mkdirSync(path.dirname(path.join(dataDir, other.file)), { recursive: true });
      writeFileSync(path.join(dataDir, other.file), other === seed ? text : other.text);
    }
    const started = Date.now();
    try {
      await loadSuite(seed.suite, { dataDir, allowPartial: true });
    } catch (error) {
      if (!isMlrbError(error)) {
        const saved = path.join(findings, `finding-${runs}-${path.basename(seed.file)}`);
        writeFileSync(saved, text);
        console.error(`finding: ${seed.suite} threw ${String(error)}; input saved to ${saved}`);
        process.exitCode = 1;
        break;
      }
      refusals += 1;
    }
    if (Date.now() - started > 5000) {
      const saved = path.join(findings, `slow-${runs}-${path.basename(seed.file)}`);
      writeFileSync(saved, text);
      console.error(`finding: ${seed.suite} took ${Date.now() - started} ms on one small file; input saved to ${saved}`);
      process.exitCode = 1;
      break;
    }
    runs += 1;
  }
  if (process.exitCode !== 1)
    console.log(
      `data fuzz: ${runs} inputs to ${pool.length} suite files and ${readers.length} other readers (${refusals} refused with MlrbError) in ${seconds} s, no other failure`,
    );
} finally {
  if (process.exitCode !== 1) rmSync(root, { recursive: true, force: true });
}
