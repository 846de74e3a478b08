import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCheckPruningCommand } from '../../src/cli/check-pruning-command.js';
import { runInspectCommand } from '../../src/cli/inspect-command.js';
import { ExitError } from '../../src/cli/exit-error.js';
import { buildEdgeBase, pruneHeads, quantizeWeightsInt8, storedElements, writeEdgeModel, zeroHeads } from '../support/model-builders/edge-fixtures.js';
import { useTempDirectory } from '../inspect/support/tmp-dir.js';

const tempPath = useTempDirectory('cli');
const base = buildEdgeBase();
const basePath = writeEdgeModel(tempPath('base'), base, base.model);
const quantized = quantizeWeightsInt8(base.model);
const quantizedPath = writeEdgeModel(tempPath('quantized'), base, quantized);

type Command = typeof runInspectCommand;

async function run(command: Command, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  stdout.on('data', (chunk: Buffer) => chunks.stdout.push(chunk));
  stderr.on('data', (chunk: Buffer) => chunks.stderr.push(chunk));
  let code: number;
  try {
    code = await command(argv, { stdout, stderr });
  } catch (error) {
    // The CLI's boundary (src/cli/main.ts) prints an ExitError and exits with its code; do the same here.
    if (!(error instanceof ExitError)) throw error;
    stderr.write(`${error.message}\n`);
    code = error.exitCode;
  }
  return { code, stdout: Buffer.concat(chunks.stdout).toString(), stderr: Buffer.concat(chunks.stderr).toString() };
}

describe('mlrb-eval inspect', () => {
  it('prints a readable report and a verdict; exit 0 without --strict even when it fails', async () => {
    const { code, stdout } = await run(runInspectCommand, [quantizedPath, '--tensors']);
    expect(code).toBe(0);
    // Counted from storage: the int8 weights, their scales and the shape constants are parameters too.
    expect(stdout).toContain(`Parameters: ${storedElements(quantized).toLocaleString('en-US')} total`);
    expect(stdout).toContain('Quantization (weights must be fp16/fp32): FAIL');
    expect(stdout).toContain('layers.0.query.weight_quantized  int8 [32, 32]');
    expect(stdout).toMatch(/DRAM estimate \(batch 1, 2,000 tokens\): weights .* \+ KV cache 0 \(not returned\) .* \+ logits C·V·4 = 2,000·/);
    expect(stdout).toContain('DRAM measured: not run');
    expect(stdout).toMatch(/\nVerdict: FAIL\n/);
  });

  it('--strict exits 1 on a violation and 0 on a clean model; --json prints the report objects', async () => {
    expect((await run(runInspectCommand, [quantizedPath, '--strict', '--json'])).code).toBe(1);
    const clean = await run(runInspectCommand, [basePath, '--strict', '--json', '--dram-budget', '1GiB', '--estimate-only']);
    expect(clean.code).toBe(0);
    const report = JSON.parse(clean.stdout) as {
      verdict: { status: string };
      dram: { budget: { bytes: number }; basis: string };
      inspect: { parameters: { total: number } };
    };
    expect(report.verdict.status).toBe('pass');
    expect(report.dram).toMatchObject({ budget: { bytes: 2 ** 30 }, basis: 'estimate' });
    expect(report.inspect.parameters.total).toBe(storedElements(base.model));
    expect((await run(runInspectCommand, [basePath, '--strict', '--dram-budget', '100kB', '--estimate-only'])).code).toBe(1);
  });

  it('BAD CALL – usage errors exit 2, name the command and the mistake, and point to --help', async () => {
    const cases: [string[], string][] = [
      [[], 'expected exactly one MODEL path'],
      [[basePath, basePath], 'expected exactly one MODEL path'],
      [[basePath, '--track', 'edge-mystery'], '--track: '],
      [[basePath, '--dram-budget', 'lots'], 'is not a byte size'],
      [[basePath, '--bogus'], 'unknown flag --bogus'],
      [[basePath, '--measure', '--estimate-only'], '--measure and --estimate-only contradict each other'],
    ];
    for (const [argv, message] of cases) {
      const { code, stderr } = await run(runInspectCommand, argv);
      expect(code, argv.join(' ')).toBe(2);
      expect(stderr, argv.join(' ')).toMatch(/^inspect: /);
      expect(stderr, argv.join(' ')).toContain(message);
      expect(stderr, argv.join(' ')).toContain("see 'mlrb-eval inspect --help'");
    }
    const help = await run(runInspectCommand, ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: mlrb-eval inspect MODEL');
  });

  it('EXPECTED FAILURE – a missing model propagates as MlrbError BAD_MODEL', async () => {
    await expect(run(runInspectCommand, [tempPath('absent.onnx')])).rejects.toMatchObject({ code: 'BAD_MODEL' });
  });

  it('MODEL may be the folder, as for scoring: the report is that of its model.onnx', async () => {
    const argv = ['--json', '--estimate-only'];
    const ofFolder = await run(runInspectCommand, [path.dirname(basePath), ...argv]);
    const ofFile = await run(runInspectCommand, [basePath, ...argv]);
    expect(ofFolder.code).toBe(0);
    const withoutTiming = (stdout: string) => JSON.stringify(JSON.parse(stdout, (key, value: unknown) => (key === 'readMs' ? 0 : value)));
    expect(withoutTiming(ofFolder.stdout)).toBe(withoutTiming(ofFile.stdout));
  });
});

describe('mlrb-eval check-pruning', () => {
  it('passes a head-pruned model and prints the per-layer table', async () => {
    const pruned = writeEdgeModel(tempPath('pruned'), base, pruneHeads(base, base.model, 1, [1, 2, 3]));
    const { code, stdout } = await run(runCheckPruningCommand, [pruned, '--base', basePath, '--strict']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/\n {4}1 {2}3\/4 {7}3\/4 {7}64\/64 {8}32\/32/);
    expect(stdout).toContain('Forward pass: ok');
    expect(stdout).toMatch(/\nVerdict: PASS\n/);
  });

  it('--strict exits 1 on fake pruning; --json carries the same verdict', async () => {
    const fake = writeEdgeModel(tempPath('fake'), base, zeroHeads(base, base.model, 0, [2]));
    expect((await run(runCheckPruningCommand, [fake, '--base', basePath, '--strict', '--skip-forward'])).code).toBe(1);
    const { code, stdout } = await run(runCheckPruningCommand, [fake, '--base', basePath, '--json', '--skip-forward']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { verdict: { status: string; reasons: string[] }; forwardPass: unknown };
    expect(report.verdict.status).toBe('fail');
    expect(report.verdict.reasons).toContain('fake pruning: attention heads zeroed but kept: layer 0: 1');
    expect(report.forwardPass).toBeNull();
  });

  it('BAD CALL – usage errors exit 2 and say what is wrong', async () => {
    const cases: [string[], string][] = [
      [[basePath], '--base BASE is required'],
      [['--base', basePath], 'expected exactly one MODEL path'],
      [[basePath, '--base', basePath, '--sparsity-threshold', '2'], '--sparsity-threshold: '],
      [[basePath, '--base', basePath, '--num-heads', '0'], '--num-heads: '],
    ];
    for (const [argv, message] of cases) {
      const { code, stderr } = await run(runCheckPruningCommand, argv);
      expect(code, argv.join(' ')).toBe(2);
      expect(stderr, argv.join(' ')).toMatch(/^check-pruning: /);
      expect(stderr, argv.join(' ')).toContain(message);
    }
  });
});
