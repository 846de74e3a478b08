/** Every headline a task definition can produce has a range, and the ranges hold the numbers real runs give. */
import { describe, expect, it } from 'vitest';
import { HEADLINE_METRIC_RANGES, headlineValueProblem } from '../../src/mlrb/headline-ranges.js';
import { MLRB_TASK_NAMES, mlrbTaskDefinition } from '../../src/mlrb/tasks.js';

describe('headline ranges', () => {
  it('names a range for the metric of every variant that has a headline number', () => {
    for (const name of MLRB_TASK_NAMES) {
      for (const variant of [mlrbTaskDefinition(name).full, mlrbTaskDefinition(name).mini]) {
        const { headline } = variant;
        if (headline.kind === 'none') continue;
        expect(Object.keys(HEADLINE_METRIC_RANGES), `${name}: ${headline.label}`).toContain(headline.metric);
      }
    }
  });

  it('takes the edges of a fraction and refuses what lies outside, a number where none belongs, and unknown metrics', () => {
    const source = { metric: 'acc,none' };
    expect(headlineValueProblem({ status: 'scored', value: 0, source })).toBeUndefined();
    expect(headlineValueProblem({ status: 'scored', value: 1, source })).toBeUndefined();
    expect(headlineValueProblem({ status: 'scored', value: 1.0000001, source })).toMatch(/outside its range \[0, 1\]/);
    expect(headlineValueProblem({ status: 'scored', value: null, source })).toMatch(/scored headline has a value/);
    expect(headlineValueProblem({ status: 'partial', value: 0.5, source })).toMatch(/a partial headline has no value/);
    expect(headlineValueProblem({ status: 'scored', value: 12.5, source: { metric: 'perplexity,none' } })).toMatch(/"perplexity" is not one a headline can be/);
  });
});
