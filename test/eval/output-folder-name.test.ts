/**
 * `--output-path DIR`'s folder: lm-eval's sanitized model name (its fixture's absolute path gives the same name),
 * but never a hidden one, and never one that climbs out of DIR.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { outputFolderName, sanitizeModelName } from '../../src/eval/run-facts.js';
import { repoRoot } from '../support/shared-data.js';

describe('outputFolderName', () => {
  it("an absolute path gives lm-eval's own name (recorded from lm-eval 0.4.13)", () => {
    const recorded = JSON.parse(readFileSync(path.join(repoRoot, 'test', 'fixtures', 'lm-eval', '0.4.13', 'stories260K-blimp-results.json'), 'utf8')) as {
      model_name_sanitized: string;
    };
    // The recording script redacted model_name (the checkpoint's temporary folder); its sanitized form kept it.
    const modelName = '/tmp/tmp_thxs6q6/stories/hf';
    expect(sanitizeModelName(modelName)).toBe(recorded.model_name_sanitized);
    expect(outputFolderName(modelName)).toBe(recorded.model_name_sanitized);
  });

  it.each([
    ['../shared/models/stories260K', 'shared__models__stories260K'], // lm-eval: the hidden ..__shared__models__stories260K
    ['../../a/model.onnx', 'a__model.onnx'],
    ['./model', 'model'],
    ['model', 'model'],
    ['.hidden/model', 'hidden__model'],
    ['models/../other', 'models__..__other'],
  ])('%s → %s', (model, folder) => {
    expect(outputFolderName(model)).toBe(folder);
  });

  it('a model named by . or .. alone goes by its absolute path, inside DIR', () => {
    for (const model of ['.', '..', './', '../..']) {
      const folder = outputFolderName(model);
      expect(folder).toBe(sanitizeModelName(path.resolve(model)));
      expect(folder.startsWith('.')).toBe(false);
      expect(path.basename(folder)).toBe(folder);
    }
  });
});
