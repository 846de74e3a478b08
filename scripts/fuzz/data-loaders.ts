/**
 * Fuzzes the suite loaders (MMLU CSV, BLiMP JSONL, SuperGLUE JSONL) with mutated rows for SECONDS: each input
 * is a suite folder holding one mutated file, loaded with allowPartial. The loaders' contract is the
 * finding's definition: a row they cannot use is an MlrbError naming the file (and never quoting it);
 * anything else thrown, or a load slower than a few seconds, is a finding, printed with its input saved.
 *   npx tsx scripts/fuzz/data-loaders.ts [SECONDS] [SEED] [--shared DIR]
 * Seeds: the first rows of ../shared's files when present, else small made-up rows in the same layouts.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isMlrbError } from '../../src/errors.js';
import { loadSuite } from '../../src/tasks/registry.js';

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
  const blimpRow = { sentence_good: 'The cat sat.', sentence_bad: 'The cat sat the.', field: 'syntax', linguistics_term: 'island_effects', UID: 'adjunct_island', simple_LM_method: true, one_prefix_method: false, two_prefix_method: false, lexically_identical: false, pair_id: 0 };
  return [
    { suite: 'mmlu', file: 'test/anatomy_test.csv', text: 'Which bone is longest?,femur,ulna,rib,skull,A\n"A quoted, question?",a,b,c,d,B\n' },
    { suite: 'mmlu', file: 'dev/anatomy_dev.csv', text: 'Pick one,w,x,y,z,C\nAnother,1,2,3,4,D\n' },
    { suite: 'blimp', file: 'adjunct_island.jsonl', text: `${JSON.stringify(blimpRow)}\n${JSON.stringify({ ...blimpRow, pair_id: 1 })}\n` },
    { suite: 'boolq', file: 'BoolQ/val.jsonl', text: `${JSON.stringify({ question: 'is it so', passage: 'It is so.', idx: 0, label: true })}\n` },
  ];
}

const SPECIALS = ['"', ',', '\n', '\r\n', '{', '}', '[', ']', ':', '\\', '\u0000', '\ufeff', 'null', '1e309', '-1', '99999999999999999999', '\u{1F600}', '""', '\t'];

function mutate(text: string): string {
  let out = text;
  const edits = 1 + random(4);
  for (let edit = 0; edit < edits; edit++) {
    const at = out.length === 0 ? 0 : random(out.length);
    switch (random(6)) {
      case 0: out = out.slice(0, at) + SPECIALS[random(SPECIALS.length)]! + out.slice(at); break;
      case 1: out = out.slice(0, at) + out.slice(at + 1 + random(16)); break;
      case 2: out = out.slice(0, at); break;
      case 3: { const line = out.split('\n')[random(Math.max(1, out.split('\n').length))] ?? ''; out = out.slice(0, at) + `${line}\n` + out.slice(at); break; }
      case 4: out = out.slice(0, at) + String.fromCharCode(random(0x3000)) + out.slice(at + 1); break;
      default: out = out.slice(0, at) + 'x'.repeat(random(4096)) + out.slice(at); break;
    }
  }
  return out;
}

const root = mkdtempSync(path.join(tmpdir(), 'mlrb-fuzz-data-'));
const findings = path.join(root, 'findings');
mkdirSync(findings);
const pool = seeds();
const deadline = Date.now() + seconds * 1000;
let runs = 0;
let refusals = 0;
try {
  while (Date.now() < deadline) {
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
  if (process.exitCode !== 1) console.log(`data fuzz: ${runs} inputs (${refusals} refused with MlrbError) in ${seconds} s, no other failure`);
} finally {
  if (process.exitCode !== 1) rmSync(root, { recursive: true, force: true });
}
