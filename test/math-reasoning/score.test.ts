import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePromptTemplate, DEFAULT_PROMPT_TEMPLATE } from '../../src/math-reasoning/prompt-template.js';
import { readMathProblems } from '../../src/math-reasoning/problems.js';
import { scoreMathReasoning } from '../../src/math-reasoning/score.js';
import { refusedWith } from '../support/expect-mlrb-error.js';
import { codePointEncoder, FAKE_BOS, ScriptedGenerator } from '../support/fake-text-generator.js';
import { mathFolder, writeMathProblems } from '../support/math-problems.js';

interface Expectations {
  readonly pairs: readonly { hypothesis: string; reference: string }[];
  readonly corpora: readonly { name: string; indices: number[]; bleu: number }[];
}
const expectations = JSON.parse(readFileSync(new URL('../fixtures/math-reasoning/metric-expectations.json', import.meta.url), 'utf8')) as Expectations;

/** Problems whose answers (keyed by the statement) are the recorded pairs' hypotheses. */
function pairsAsProblems(indices: readonly number[]): { file: string; generator: ScriptedGenerator } {
  const rows = indices.map((index) => ({
    name: `p${index}`,
    informal_statement: `statement ${index}`,
    informal_proof: `proof ${index}`,
    formal_proof: expectations.pairs[index]!.reference,
  }));
  const answers = new Map(indices.map((index) => [`statement ${index}`, expectations.pairs[index]!.hypothesis]));
  const generator = new ScriptedGenerator((prompt) => answers.get(/Problem: (statement \d+)/u.exec(prompt)?.[1] ?? '') ?? '');
  return { file: writeMathProblems(rows), generator };
}

describe('scoreMathReasoning with a scripted generator', () => {
  it('scores corpus BLEU as sacrebleu and ROUGE-L as the mean of per-problem F-measures', async () => {
    const slice = expectations.corpora.find((corpus) => corpus.name === 'short_and_empty')!;
    const { file, generator } = pairsAsProblems(slice.indices);
    const report = await scoreMathReasoning({ data: file, generator, encoder: codePointEncoder });
    expect(Math.abs(report.metrics.bleu - slice.bleu)).toBeLessThanOrEqual(1e-9);
    // Per pair, by hand from rouge_score's definition: empty hypothesis 0, empty reference 0, both empty 0,
    // [rfl] vs [theorem t 1 1 2 rfl]: P 1, R 1/6, F 2/7; [by norm num] vs [example 2 3 by norm num]: P 1, R 1/2, F 2/3.
    expect(report.problems.map((problem) => problem.rouge_l)).toEqual([0, 0, 0, 2 / 7, 2 / 3].map((value) => expect.closeTo(value, 15)));
    expect(report.metrics.rouge_l).toBeCloseTo((2 / 7 + 2 / 3) / 5, 15);
    expect(report.metrics.lean).toBeNull();
    expect(report.problems_scored).toBe(5);
    expect(report.problems.map((problem) => problem.line)).toEqual([1, 2, 3, 4, 5]);
  });

  it('prompts with the default template through the encoder (BOS included), greedy, 200 new tokens', async () => {
    const { file, generator } = pairsAsProblems([0]);
    const report = await scoreMathReasoning({ data: file, generator, encoder: codePointEncoder });
    expect(generator.calls).toHaveLength(1);
    const call = generator.calls[0]!;
    expect(call.settings).toEqual({ maxNewTokens: 200, stopStrings: [] });
    expect(call.prompts[0]).toEqual(
      codePointEncoder.encodeWithSpecialTokens('Problem: statement 0\nInformal proof: proof 0\nFormal statement and proof in Lean 3:\n'),
    );
    expect(call.prompts[0]?.[0]).toBe(FAKE_BOS);
    expect(report.settings).toMatchObject({ template: DEFAULT_PROMPT_TEMPLATE, decoding: 'greedy', max_new_tokens: 200, max_prompt_tokens: 512 });
    expect(report.problems[0]).toMatchObject({
      name: 'p0',
      output: expectations.pairs[0]!.hypothesis,
      finish_reason: 'eos',
      prompt_truncated: false,
      rouge_l: 1,
    });
  });

  it('keeps the first maxPromptTokens tokens of a long prompt and says so', async () => {
    const { file, generator } = pairsAsProblems([0, 1]);
    const report = await scoreMathReasoning({ data: file, generator, encoder: codePointEncoder, maxPromptTokens: 21, maxNewTokens: 3 });
    // BOS and "Problem: statement 0": the scripted generator still finds the statement it answers.
    const expected = codePointEncoder.encodeWithSpecialTokens('Problem: statement 0');
    expect(generator.calls[0]?.prompts[0]).toEqual(expected);
    expect(report.problems.map((problem) => [problem.prompt_tokens, problem.prompt_truncated])).toEqual([
      [21, true],
      [21, true],
    ]);
    expect(report.problems.map((problem) => [problem.generated_tokens, problem.finish_reason])).toEqual([
      [3, 'max_new_tokens'],
      [3, 'max_new_tokens'],
    ]);
  });

  it('scores the first --limit problems only', async () => {
    const { file, generator } = pairsAsProblems([0, 1, 2]);
    const report = await scoreMathReasoning({ data: file, generator, encoder: codePointEncoder, limit: 2 });
    expect([report.problems_scored, report.problems_in_file]).toEqual([2, 3]);
    expect(generator.calls[0]?.prompts).toHaveLength(2);
  });

  it('renders a custom template with {name}, literal braces, and values never re-expanded', async () => {
    const file = writeMathProblems([{ name: 'n1', informal_statement: 'show {name} = {{x}}', informal_proof: 'p', formal_proof: 'f' }]);
    const generator = new ScriptedGenerator(() => 'f');
    await scoreMathReasoning({ data: file, generator, encoder: codePointEncoder, template: '{{{name}}}: {informal_statement}' });
    expect(generator.calls[0]?.prompts[0]).toEqual(codePointEncoder.encodeWithSpecialTokens('{n1}: show {name} = {{x}}'));
  });
});

describe('prompt templates', () => {
  const problem = { name: 'n', informal_statement: 's', informal_proof: 'p', formal_proof: 'f', line: 1 };
  it('renders every known placeholder', () => {
    expect(parsePromptTemplate('{name}|{informal_statement}|{informal_proof}').render(problem)).toBe('n|s|p');
  });
  it('BAD CALL – refuses unknown placeholders, the reference field, stray braces and templates without fields', () => {
    expect(() => parsePromptTemplate('{statement}')).toThrow(/unknown placeholder \{statement\}.*\{informal_statement\}/u);
    expect(() => parsePromptTemplate('{formal_proof}')).toThrow(RangeError);
    expect(() => parsePromptTemplate('{informal_statement} }')).toThrow(/lone "\}"/u);
    expect(() => parsePromptTemplate('no fields {{here}}')).toThrow(/names no field/u);
  });
});

describe('the problems file', () => {
  const good = { name: 'a', informal_statement: 's', informal_proof: 'p', formal_proof: 'f' };
  it("reads MLRB's columns and ignores others", () => {
    const file = path.join(mathFolder(), 'p.jsonl');
    writeFileSync(file, `${JSON.stringify({ ...good, extra: 1 })}\n\n${JSON.stringify({ ...good, name: 'b' })}\n`);
    expect(readMathProblems(file).map((problem) => [problem.name, problem.line])).toEqual([
      ['a', 1],
      ['b', 3],
    ]);
  });
  it('EXPECTED FAILURE – BAD_DATA names the file, the line and the field', async () => {
    const missing = writeMathProblems([good], `${JSON.stringify({ name: 'x', informal_statement: 's', informal_proof: 'p' })}\n`);
    const error = await refusedWith('BAD_DATA', (async () => readMathProblems(missing))());
    expect(error.message).toMatch(/problems\.jsonl line 2: field "formal_proof"/u);
    const broken = writeMathProblems([good], '{"name": \n');
    expect((await refusedWith('BAD_DATA', (async () => readMathProblems(broken))())).message).toMatch(/line 2: not valid JSON/u);
    // The data file is hostile input too: a link to a device is refused, not read without end.
    const device = path.join(mathFolder(), 'device.jsonl');
    symlinkSync('/dev/zero', device);
    await refusedWith('BAD_DATA', (async () => readMathProblems(device))());
    const empty = path.join(mathFolder(), 'empty.jsonl');
    writeFileSync(empty, '\n');
    expect((await refusedWith('BAD_DATA', (async () => readMathProblems(empty))())).message).toMatch(/has no problems/u);
  });
});
