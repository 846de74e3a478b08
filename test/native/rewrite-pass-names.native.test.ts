/**
 * The load-time rewrite names have one source, the addon's pass list (native/graph/rewrite_passes.cc): the TS
 * constant that types them must equal it, an addon whose list differs is refused at load, and evaluate()'s options
 * accept exactly the addon's names.
 */
import { describe, expect, it } from 'vitest';
import { MlrbError } from '../../src/errors.js';
import { loadBinding, REWRITE_NAMES, requireKnownRewritePasses } from '../../src/native/binding.js';
import { parseEvaluateOptions } from '../../src/run/evaluate-options.js';
import { evaluate } from '../../src/run/evaluate.js';

const required = { model: 'model.onnx', suite: 'mmlu', dataDir: 'data' };

describe('rewrite pass names', () => {
  it("the addon exports its passes in order, frozen, and they are TS's static list", () => {
    const passes = loadBinding().rewritePasses;
    expect([...passes]).toEqual([...REWRITE_NAMES]);
    expect(Object.isFrozen(passes)).toBe(true);
  });

  it('EXPECTED FAILURE – an addon whose pass list differs is refused at load, naming both lists', () => {
    const reordered = [...REWRITE_NAMES].reverse();
    const refusal = (passes: unknown): unknown => {
      try {
        requireKnownRewritePasses(passes, '/x/mlrb_native.node');
        return undefined;
      } catch (error) {
        return error;
      }
    };
    for (const passes of [reordered, REWRITE_NAMES.slice(1), [...REWRITE_NAMES, 'extraPass'], undefined, 'cpuFusion']) {
      const error = refusal(passes);
      expect(error).toBeInstanceOf(MlrbError);
      expect(error).toMatchObject({ code: 'ORT_LOAD', message: expect.stringContaining(`this mlrb-eval expects ${REWRITE_NAMES.join(', ')}`) });
      expect((error as MlrbError).message).toContain('/x/mlrb_native.node');
    }
    expect(refusal(reordered)).toMatchObject({ message: expect.stringContaining(`runs the rewrite passes ${reordered.join(', ')}`) });
    expect(refusal(undefined)).toMatchObject({ message: expect.stringContaining('exports no list of rewrite passes') });
    expect(refusal([...REWRITE_NAMES])).toBeUndefined();
  });

  it("evaluate() options take every name of the addon's list, and nothing else", () => {
    const names = loadBinding().rewritePasses;
    const allOff = Object.fromEntries(names.map((name) => [name, false]));
    expect(parseEvaluateOptions({ ...required, rewrites: allOff }).rewrites).toEqual(allOff);
    const misspelt = () => evaluate({ ...required, rewrites: { cpuFuson: false } as never });
    expect(misspelt).toThrow(TypeError);
    expect(misspelt).toThrow(`cpuFuson: not a rewrite; the rewrites are ${names.join(', ')}`);
    expect(() => evaluate({ ...required, rewrites: { sliceLmHead: 'no' } as never })).toThrow(/rewrites\.sliceLmHead/);
  });
});
