/**
 * check-pruning on models that real exporters wrote: small random Phi, Llama and GPT-2 from transformers,
 * pruned in torch by slicing weights, exported by torch.onnx.export (TorchScript at opset 14 and 17, and
 * dynamo). The expectations are what scripts/edge/build_pruning_fixtures.py knew when it built them (the
 * heads, channels and layers it removed, transformers' num_parameters()), written to its manifest.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { runCheckPruningCommand } from '../../../src/cli/check-pruning-command.js';
import { describeShape } from '../../../src/inspect/graph/architecture.js';
import { layerWidths } from '../../../src/inspect/graph/layer-widths.js';
import { readModelGraph } from '../../../src/inspect/graph/model-graph.js';
import { checkPruning, type PruningReport } from '../../../src/inspect/pruning/pruning-check.js';
import { hasShared, sharedPaths } from '../../support/shared-data.js';
import { useTempDirectory } from '../support/tmp-dir.js';

interface FixtureFacts {
  readonly arch: 'phi' | 'llama' | 'gpt2';
  readonly exporter: string;
  readonly variant: string;
  readonly file: string;
  readonly base: string;
  readonly params: number;
  readonly baseParams: number;
  /** Every stored element, copies once (scripts/edge/stored_elements.py): what parameters are counted from. */
  readonly storedElements: number;
  readonly baseStoredElements: number;
  readonly baseKvHeads: number;
  /** Base layer → query heads, key/value heads and FFN channels the script kept there (read off its torch modules). */
  readonly heads: Readonly<Record<string, number>>;
  readonly kvHeads: Readonly<Record<string, number>>;
  readonly ffn: Readonly<Record<string, number>>;
  readonly removedLayers: readonly number[];
  readonly verdict: 'pass' | 'fail';
  readonly fakeHeads?: Readonly<Record<string, number>>;
  readonly unused?: string;
  readonly quantized?: boolean;
}

interface Manifest {
  readonly sizes: {
    readonly hidden: number;
    readonly heads: number;
    readonly headDim: number;
    readonly ffn: number;
    readonly layers: number;
    readonly vocab: number;
  };
  readonly fixtures: readonly FixtureFacts[];
  readonly skipped: readonly { readonly arch: string; readonly exporter: string; readonly why: string }[];
}

const fixtureDirectory = join(import.meta.dirname, '..', '..', 'fixtures', 'edge', 'pruning');
const manifest = JSON.parse(readFileSync(join(fixtureDirectory, 'manifest.json'), 'utf8')) as Manifest;
const tempPath = useTempDirectory('pruning-real');
const unpacked = new Map<string, string>();
/** The fixture, gunzipped into this file's temp directory once. */
function fixture(file: string): string {
  let path = unpacked.get(file);
  if (path === undefined) {
    path = tempPath(file.replace(/\.gz$/, ''));
    writeFileSync(path, gunzipSync(readFileSync(join(fixtureDirectory, file))));
    unpacked.set(file, path);
  }
  return path;
}

const { sizes } = manifest;
const name = (facts: FixtureFacts): string => `${facts.arch} ${facts.exporter} ${facts.variant}`;

function expectLayers(report: PruningReport, facts: FixtureFacts): void {
  expect(report.removedLayers).toEqual(facts.removedLayers);
  for (let layer = 0; layer < sizes.layers; layer++) {
    const row = report.layers[layer]!;
    if (facts.removedLayers.includes(layer)) {
      expect(row.status, `layer ${layer}`).toBe('removed');
      continue;
    }
    expect(row.status, `layer ${layer}`).toBe('kept');
    expect(row.heads, `layer ${layer} heads`).toEqual({ base: sizes.heads, kept: facts.heads[String(layer)] });
    expect(row.kvHeads, `layer ${layer} kv heads`).toEqual({ base: facts.baseKvHeads, kept: facts.kvHeads[String(layer)] });
    expect(row.ffnChannels, `layer ${layer} FFN`).toEqual({ base: sizes.ffn, kept: facts.ffn[String(layer)] });
    expect(row.hidden, `layer ${layer} hidden`).toEqual({ base: sizes.hidden, kept: sizes.hidden });
  }
}

describe('check-pruning on real exports (scripts/edge/build_pruning_fixtures.py)', () => {
  it('the manifest covers every architecture with each exporter, or says why one was skipped', () => {
    for (const arch of ['phi', 'llama', 'gpt2']) {
      const exporters = new Set(manifest.fixtures.filter((facts) => facts.arch === arch).map((facts) => facts.exporter));
      for (const exporter of ['torchscript-opset14', 'dynamo']) {
        expect(exporters.has(exporter) || manifest.skipped.some((skip) => skip.arch === arch && skip.exporter === exporter), `${arch} ${exporter}`).toBe(true);
      }
    }
  });

  for (const facts of manifest.fixtures)
    it(`${name(facts)}: verdict, percent removed and per-layer widths`, async () => {
      // No config.json beside the base and no numHeads: the head count comes from the graph's query split.
      const report = await checkPruning(fixture(facts.file), { base: fixture(facts.base) });
      expect(report.verdict.status, report.verdict.reasons.join('\n')).toBe(facts.verdict);
      expect([report.base.heads, report.base.kvHeads, report.base.headDim]).toEqual([sizes.heads, facts.baseKvHeads, sizes.headDim]);
      expect(report.rolesFrom).toBe('graph');
      expect(report.pruned.hidden).toBe(sizes.hidden);
      expect(report.pruned.vocab).toBe(sizes.vocab);
      expect(report.base.totalParams).toBe(facts.baseStoredElements);
      expect(report.pruned.params).toBe(facts.storedElements);
      expect(report.percentRemoved).toBeCloseTo((100 * (facts.baseStoredElements - facts.storedElements)) / facts.baseStoredElements, 10);
      expectLayers(report, facts);
      expect(report.forwardPass?.ok, report.forwardPass?.error?.message).toBe(true);
      const reasons = report.verdict.reasons.join('\n');
      if (facts.verdict === 'pass') {
        expect(report.verdict.reasons).toEqual([]);
        expect(report.layerMapping).toBe('by-weights');
      }
      // An unpruned model (a re-export too, whose exporter stores other constants) is no pruning, whatever it stores.
      if (facts.params === facts.baseParams) expect(reasons).toContain('no parameters were removed');
      for (const [layer, heads] of Object.entries(facts.fakeHeads ?? {})) {
        expect(report.fakePruning.layers.find((entry) => entry.layer === Number(layer))?.zeroHeads).toBe(heads);
        expect(reasons).toContain(`attention heads zeroed but kept: layer ${layer}: ${heads}`);
      }
      expect(report.unusedInitializers).toEqual(facts.unused === undefined ? [] : [facts.unused]);
      if (facts.unused !== undefined) expect(report.verdict.warnings.join('\n')).toContain(facts.unused);
      expect(report.quantization.verdict.status).toBe(facts.quantized === true ? 'fail' : 'pass');
      if (facts.quantized === true) expect(reasons).toMatch(/^quantization: /m);
    });
});

async function runCli(argv: string[]): Promise<{ code: number; stdout: string }> {
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const code = await runCheckPruningCommand(argv, { stdout, stderr: new PassThrough() });
  return { code, stdout: Buffer.concat(chunks).toString('utf8') };
}

describe('mlrb-eval check-pruning on real exports', () => {
  for (const facts of manifest.fixtures)
    it(`${name(facts)}: --json --strict exit code and report`, async () => {
      const { code, stdout } = await runCli([fixture(facts.file), '--base', fixture(facts.base), '--json', '--strict', '--skip-forward']);
      expect(code).toBe(facts.verdict === 'pass' ? 0 : 1);
      const report = JSON.parse(stdout) as PruningReport;
      expect(report.verdict.status).toBe(facts.verdict);
      expect(report.removedLayers).toEqual(facts.removedLayers);
      expect(report.pruned.params).toBe(facts.storedElements);
    });

  it('prints the removed middle layer of a renumbered TorchScript export and the widths of the others', async () => {
    const facts = manifest.fixtures.find((entry) => entry.arch === 'phi' && entry.exporter === 'torchscript-opset14' && entry.variant === 'pruned-layer')!;
    const { code, stdout } = await runCli([
      fixture(facts.file),
      '--base',
      fixture(facts.base),
      '--num-heads',
      String(sizes.heads),
      '--strict',
      '--skip-forward',
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain('removed: 1 (matched by-weights; roles from the graph)');
    expect(stdout).toContain('Quantization (weights must be fp16/fp32): none');
    expect(stdout).toMatch(/\n {4}1 {2}removed\n/);
    expect(stdout).toMatch(/\n {4}2 {2}4\/4 {7}4\/4 {7}32\/32 {8}16\/16/);
    expect(stdout).toMatch(/\nVerdict: PASS\n/);
  });

  it('BAD CALL – --bf16 takes warn or fail (exit 2, naming the flag)', async () => {
    const facts = manifest.fixtures[0]!;
    const failure = await runCli([fixture(facts.file), '--base', fixture(facts.base), '--bf16', 'maybe']).catch((error: unknown) => error);
    expect(failure).toMatchObject({ exitCode: 2 });
    expect(String((failure as Error).message)).toMatch(/^check-pruning: --bf16: .*\nsee 'mlrb-eval check-pruning --help'$/);
  });

  it('EXPECTED FAILURE – an unpruned model with a dead initializer: listed apart, and counted (it is stored), so nothing is removed', async () => {
    const facts = manifest.fixtures.find((entry) => entry.arch === 'gpt2' && entry.variant === 'unused-initializer')!;
    const { code, stdout } = await runCli([fixture(facts.file), '--base', fixture(facts.base), '--strict', '--skip-forward']);
    expect(code).toBe(1);
    expect(stdout).toContain(`Unused initializers (reach no output; stored, so counted): ${facts.unused}`);
    const percent = (100 * (facts.baseStoredElements - facts.storedElements)) / facts.baseStoredElements;
    expect(stdout).toContain(
      `Parameters: ${facts.baseStoredElements.toLocaleString('en-US')} -> ${facts.storedElements.toLocaleString('en-US')} (${percent.toFixed(2)}% removed)`,
    );
  });
});

// Facts from the models' own config.json / genai_config.json: ORT-fused graphs (EmbedLayerNormalization,
// contrib Attention holding the qkv weight, SkipLayerNormalization, FastGelu with its bias) and llama2c's GQA.
describe.skipIf(!hasShared)('graph roles on the shared real models (../shared)', () => {
  it.each([
    ['tiny-random-gpt2-past (ORT-fused GPT-2)', sharedPaths.gpt2Past, 'tiny-random-gpt2-past/genai_config.json'],
    ['stories260K (llama2c, GQA)', sharedPaths.stories, 'stories260K/config.json'],
  ] as const)('%s: layers, head_dim and widths from the graph; compared with itself nothing is removed', async (_, model, configFile) => {
    const config = JSON.parse(readFileSync(join(model, '..', '..', configFile), 'utf8')) as Record<string, unknown> & {
      model?: { decoder: Record<string, number> };
    };
    const decoder = config.model?.decoder;
    const layers = decoder?.num_hidden_layers ?? (config.num_hidden_layers as number);
    const headDim = decoder?.head_size ?? (config.head_dim as number);
    const kvHeads = decoder?.num_key_value_heads ?? (config.num_key_value_heads as number);
    const shape = describeShape(await readModelGraph(model));
    expect(shape.rolesFrom).toBe('graph');
    expect(shape.headDim).toBe(headDim);
    expect(shape.layers).toHaveLength(layers);
    for (const layer of shape.layers) expect(layerWidths(layer).keyWidth).toBe(kvHeads * headDim);
    const report = await checkPruning(model, { base: model, forwardPass: false });
    expect(report.verdict.reasons).toEqual([expect.stringContaining('no parameters were removed')]);
    expect(report.percentRemoved).toBe(0);
    expect(report.layers.every((row) => row.status === 'kept' && row.heads.kept === row.heads.base)).toBe(true);
  });
});
