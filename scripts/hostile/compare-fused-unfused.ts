/**
 * Loads and scores every model in a folder (mutate_model.py's mutants) twice, each in its own process so an
 * abort inside ONNX Runtime costs one row: with CPU fusion (the default) and with --no-cpu-fusion. The
 * default path must refuse exactly what the unfused one refuses and otherwise agree within 1e-4.
 * Usage: tsx scripts/hostile/compare-fused-unfused.ts DIR   (exit 1 when a row disagrees)
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scoreModelInputs } from '../../src/engine/score-requests.js';
import { loadModel } from '../../src/model/onnx-model.js';

type Outcome = { kind: 'scored'; logliks: number[] } | { kind: 'refused'; code: string } | { kind: 'crashed'; detail: string };

const REQUESTS = [
  { inputTokens: [1, 45, 67, 89, 100, 7, 300], continuationTokens: [200, 30] },
  { inputTokens: [1, 400, 12], continuationTokens: [9] },
  { inputTokens: Array.from({ length: 40 }, (_, index) => 5 + ((index * 37) % 500)), continuationTokens: [77, 78, 79] },
];

async function scoreOnce(model: string, cpuFusion: boolean): Promise<Outcome> {
  try {
    const loaded = await loadModel({ model, cpuFusion, threads: 1 });
    const { results } = await scoreModelInputs(loaded, REQUESTS);
    loaded.dispose();
    return { kind: 'scored', logliks: results.map((result) => result.loglik) };
  } catch (error) {
    return { kind: 'refused', code: (error as { code?: string }).code ?? 'none' };
  }
}

function inChild(model: string, cpuFusion: boolean): Outcome {
  try {
    const stdout = execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--one', model, String(cpuFusion)], {
      encoding: 'utf8',
      timeout: 120_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Outcome;
  } catch (error) {
    return { kind: 'crashed', detail: (error as { signal?: string; status?: number }).signal ?? String((error as { status?: number }).status) };
  }
}

function agree(fused: Outcome, plain: Outcome): boolean {
  if (fused.kind === 'scored' && plain.kind === 'scored') {
    return fused.logliks.every(
      (loglik, index) => Math.abs(loglik - (plain.logliks[index] ?? Number.NaN)) <= 1e-4 || (Number.isNaN(loglik) && Number.isNaN(plain.logliks[index])),
    );
  }
  return fused.kind === 'refused' && plain.kind === 'refused';
}

async function main(): Promise<void> {
  const [flag, model, fusion] = process.argv.slice(2);
  if (flag === '--one' && model !== undefined) {
    process.stdout.write(`${JSON.stringify(await scoreOnce(model, fusion === 'true'))}\n`);
    return;
  }
  if (flag === undefined) throw new TypeError('usage: tsx scripts/hostile/compare-fused-unfused.ts DIR');
  const files = readdirSync(flag)
    .filter((name) => name.endsWith('.onnx'))
    .sort();
  const tally = new Map<string, number>();
  let disagreements = 0;
  for (const file of files) {
    const fused = inChild(path.join(flag, file), true);
    const plain = inChild(path.join(flag, file), false);
    const key = `${fused.kind}/${plain.kind}`;
    tally.set(key, (tally.get(key) ?? 0) + 1);
    if (!agree(fused, plain)) {
      disagreements += 1;
      process.stdout.write(`${file}: default ${JSON.stringify(fused)} vs unfused ${JSON.stringify(plain)}\n`);
    }
  }
  process.stdout.write(`${files.length} models, default/unfused: ${JSON.stringify(Object.fromEntries(tally))}, ${disagreements} disagree\n`);
  process.exitCode = disagreements > 0 ? 1 : 0;
}

await main();
