/**
 * GSM8K held to lm-eval's own: test/fixtures/lm-eval/gsm8k-expectations.json holds what lm-eval 0.4.13 did with
 * its gsm8k.yaml on the repo's fixture (scripts/lm_eval/record_gsm8k_expectations.py): the YAML itself, the
 * generate_until contexts it built 0-, 2- and 5-shot, the filtered answers and exact_match of its filter
 * ensembles and process_results for hand-written responses, the aggregated metric, its exact_match on tricky
 * pairs, and HFLM's stop-string handling.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createExactMatch } from '../../../src/eval/generate-until/exact-match.js';
import { cutAtStopStrings, generateUntil, planGeneration } from '../../../src/eval/generate-until/hflm-generate.js';
import { buildGenerateUntilRequests } from '../../../src/eval/generate-until/requests.js';
import {
  createGenerateUntilScorer,
  generateUntilConfig,
  generateUntilResultEntry,
  generateUntilSamples,
  scoreGenerateUntil,
} from '../../../src/eval/generate-until/results.js';
import type { GenerateUntilTask } from '../../../src/tasks/generate-until-types.js';
import { loadGsm8k } from '../../../src/tasks/gsm8k/load.js';
import { FakeTextGenerator } from '../../support/lookup-text-generator.js';
import { repoRoot } from '../../support/shared-data.js';

interface Outcome {
  readonly response: string;
  readonly filtered: Readonly<Record<string, string>>;
  readonly exact_match: Readonly<Record<string, number>>;
}

interface Recorded {
  readonly yaml: Record<string, unknown> & { readonly metadata: { readonly version: number } };
  readonly config: Record<string, unknown>;
  readonly requests: Readonly<Record<string, readonly { readonly docId: number; readonly context: string; readonly kwargs: unknown }[]>>;
  readonly responses: readonly { readonly docId: number; readonly target: string; readonly outcomes: readonly Outcome[] }[];
  readonly aggregate: Readonly<Record<string, { readonly exact_match: number; readonly exact_match_stderr: number }>>;
  readonly exactMatch: {
    readonly options: Readonly<
      Record<string, { ignore_case: boolean; ignore_punctuation: boolean; ignore_numbers?: boolean; regexes_to_ignore: string[] | null }>
    >;
    readonly cases: readonly { readonly options: string; readonly prediction: string; readonly reference: string; readonly score: number }[];
  };
  readonly stops: readonly { readonly until: string[]; readonly eos: string; readonly generated: string; readonly stops: string[]; readonly text: string }[];
}

const recorded = JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/lm-eval/gsm8k-expectations.json'), 'utf8')) as Recorded;
const HUB = path.join(repoRoot, 'test/fixtures/tasks/gsm8k/hub');
const RELEASE = path.join(repoRoot, 'test/fixtures/tasks/gsm8k/release');

describe('gsm8k spec against lm-eval 0.4.13 gsm8k.yaml', () => {
  it('states the YAML: version, templates, splits, generation kwargs, filters, metric options', async () => {
    const task = await loadGsm8k({ dataDir: HUB });
    const config: Readonly<Record<string, unknown>> = { ...generateUntilConfig(task) };
    const { yaml } = recorded;
    expect(task.version).toBe(yaml.metadata.version);
    expect(task.numFewshot).toBe(yaml['num_fewshot']);
    for (const field of ['task', 'dataset_name', 'training_split', 'fewshot_split', 'test_split', 'doc_to_text', 'doc_to_target', 'output_type', 'repeats']) {
      expect(config[field], field).toEqual(yaml[field]);
    }
    expect(config['metric_list']).toEqual(yaml['metric_list']);
    expect(config['generation_kwargs']).toEqual(yaml['generation_kwargs']);
    expect(config['filter_list']).toEqual(yaml['filter_list']);
    expect(config['tag']).toBe((yaml['tag'] as string[])[0]);
    // 0.4.13 renamed the hub id; the MLRB-era YAML (0.4.4-0.4.8) said `gsm8k`.
    expect(yaml['dataset_path']).toBe('openai/gsm8k');
    expect(config['dataset_path']).toBe('gsm8k');
  });

  it("matches dump_config's fields for a generate_until task", async () => {
    const config: Readonly<Record<string, unknown>> = { ...generateUntilConfig(await loadGsm8k({ dataDir: HUB })) };
    // Fields our 0.4.8-layout dump does not carry: the 0.4.13 layout adds them (results-layout-0413.ts), and
    // dataset_path / dataset_kwargs name the recording's local parquet files.
    const notCompared = new Set(['dataset_path', 'dataset_kwargs', 'unsafe_code', 'fewshot_config']);
    for (const [field, value] of Object.entries(recorded.config)) {
      if (!notCompared.has(field)) expect(config[field], field).toEqual(value);
    }
  });

  it('reads the same documents from the release JSONL and the hub parquet', async () => {
    const hub = await loadGsm8k({ dataDir: HUB });
    const release = await loadGsm8k({ dataDir: RELEASE });
    expect(release.docs).toEqual(hub.docs);
    expect(release.fewshot?.docs).toEqual(hub.fewshot?.docs);
    expect(hub.docs.map((doc) => doc.target)).toEqual(recorded.responses.map((doc) => doc.target));
  });
});

describe('gsm8k generate_until requests against lm-eval 0.4.13', () => {
  for (const [shots, expected] of Object.entries(recorded.requests)) {
    it(`builds lm-eval's ${shots}-shot contexts and kwargs`, async () => {
      const task = await loadGsm8k({ dataDir: RELEASE, numFewshot: Number(shots) });
      const requests = buildGenerateUntilRequests(task);
      expect(requests.map((request) => request.docId)).toEqual(expected.map((request) => request.docId));
      expect(requests.map((request) => request.context)).toEqual(expected.map((request) => request.context));
      const config: Readonly<Record<string, unknown>> = { ...generateUntilConfig(task) };
      for (const request of expected) expect(config['generation_kwargs']).toEqual(request.kwargs);
    });
  }
});

describe('gsm8k filters and exact_match against lm-eval 0.4.13', () => {
  const outcomeCount = recorded.responses[0]?.outcomes.length ?? 0;

  it.each(Array.from({ length: outcomeCount }, (_, index) => index))('response %i: filtered answers and scores per filter', async (index) => {
    const task = await loadGsm8k({ dataDir: HUB });
    const responses = recorded.responses.map((doc) => doc.outcomes[index]?.response ?? '');
    const scores = scoreGenerateUntil(task, responses);
    for (const filter of scores.filters) {
      expect(filter.filtered).toEqual(recorded.responses.map((doc) => doc.outcomes[index]?.filtered[filter.filter]));
      expect(filter.scores).toEqual(recorded.responses.map((doc) => doc.outcomes[index]?.exact_match[filter.filter]));
    }
  });

  it("aggregates as lm-eval does and keys the results entry '<metric>,<filter>'", async () => {
    const task = await loadGsm8k({ dataDir: HUB });
    const scores = scoreGenerateUntil(
      task,
      recorded.responses.map((doc) => doc.outcomes[0]?.response ?? ''),
    );
    const entry = generateUntilResultEntry(task, scores);
    const expected: Record<string, number | string> = { alias: 'gsm8k' };
    for (const [filter, values] of Object.entries(recorded.aggregate)) {
      expected[`exact_match,${filter}`] = values.exact_match;
      expected[`exact_match_stderr,${filter}`] = values.exact_match_stderr;
    }
    expect(entry).toEqual(expected);
    expect(Object.keys(entry)).toEqual([
      'alias',
      'exact_match,strict-match',
      'exact_match_stderr,strict-match',
      'exact_match,flexible-extract',
      'exact_match_stderr,flexible-extract',
    ]);
  });

  it.each(recorded.exactMatch.cases.map((item) => [item.options, JSON.stringify(item.prediction), JSON.stringify(item.reference), item] as const))(
    'exact_match (%s) of %s against %s',
    (name, _prediction, _reference, item) => {
      const options = recorded.exactMatch.options[name];
      if (options === undefined) throw new Error(`no options ${name}`);
      const exactMatch = createExactMatch({
        regexesToIgnore: options.regexes_to_ignore ?? [],
        ignoreCase: options.ignore_case,
        ignorePunctuation: options.ignore_punctuation,
        ignoreNumbers: options.ignore_numbers ?? false,
      });
      expect(exactMatch(item.prediction, item.reference)).toBe(item.score);
    },
  );

  it("gives a single document's stderr as lm-eval's 'N/A', and refuses a pattern with no translation when the scorer is made", async () => {
    const task = await loadGsm8k({ dataDir: HUB, limit: 1 });
    const entry = generateUntilResultEntry(task, scoreGenerateUntil(task, [' #### 21']));
    expect(entry).toEqual({
      alias: 'gsm8k',
      'exact_match,strict-match': 1,
      'exact_match_stderr,strict-match': 'N/A',
      'exact_match,flexible-extract': 1,
      'exact_match_stderr,flexible-extract': 'N/A',
    });
    const unsupported: GenerateUntilTask = {
      ...task,
      filters: [{ name: 'words', steps: [{ function: 'regex', regexPattern: '\\b(\\w+)', groupSelect: 0, fallback: '[invalid]' }] }],
    };
    expect(() => createGenerateUntilScorer(unsupported)).toThrow(/\\w/);
  });

  it('writes one sample per (filter, document), filter by filter, with resps [[text]] and filtered_resps [answer]', async () => {
    const task: GenerateUntilTask = await loadGsm8k({ dataDir: HUB });
    const requests = buildGenerateUntilRequests(task);
    const responses = recorded.responses.map((doc) => doc.outcomes[0]?.response ?? '');
    const samples = generateUntilSamples(task, requests, responses, scoreGenerateUntil(task, responses));
    expect(samples.map((sample) => [sample.filter, sample.doc_id])).toEqual(
      ['strict-match', 'flexible-extract'].flatMap((filter) => task.docs.map((doc) => [filter, doc.docId])),
    );
    const first = samples[0];
    expect(first?.resps).toEqual([[responses[0]]]);
    expect(first?.filtered_resps).toEqual([recorded.responses[0]?.outcomes[0]?.filtered['strict-match']]);
    expect(first?.arguments).toEqual([[recorded.requests['5']?.[0]?.context, recorded.requests['5']?.[0]?.kwargs]]);
    expect(first?.target).toBe(recorded.responses[0]?.target);
  });
});

describe("HFLM's stop strings against lm-eval 0.4.13", () => {
  it.each(recorded.stops.map((item) => [JSON.stringify(item.until), JSON.stringify(item.eos), item] as const))('until %s with EOS %s', (_until, _eos, item) => {
    const plan = planGeneration({ until: item.until, doSample: false, temperature: 0 }, { encode: () => [1], eosText: item.eos, maxLength: 2048 });
    expect(plan.until).toEqual(item.stops);
    expect(plan.settings.stopStrings).toEqual(item.stops);
    expect(cutAtStopStrings(item.generated, plan.until)).toBe(item.text);
  });
});

describe('gsm8k end to end over a TextGenerator', () => {
  it("load → requests → HFLM generate_until → filters and exact_match gives lm-eval's results entry", async () => {
    const task = await loadGsm8k({ dataDir: RELEASE });
    const requests = buildGenerateUntilRequests(task);
    // A character-level tokenizer; the scripted model answers each prompt with the recorded first response of the
    // document whose context it was given, followed by a new question it must not be credited for.
    const encode = (text: string): number[] => [...text].map((char) => (char.codePointAt(0) ?? 0) + 10);
    const decode = (id: number): string => (id < 10 ? '' : String.fromCodePoint(id - 10));
    const byContext = new Map(requests.map((request, index) => [request.context, recorded.responses[index]?.outcomes[0]?.response ?? '']));
    const generator = new FakeTextGenerator((prompt) => {
      const answer = byContext.get(prompt.map(decode).join(''));
      if (answer === undefined) throw new Error('the prompt is no request context');
      return { tokenIds: encode(`${answer}\n\nQuestion: and then?`), decode };
    }, 2);
    const responses = await generateUntil(requests, generator, { encode, eosText: '</s>', maxLength: 8192 });
    expect(responses).toEqual(recorded.responses.map((doc) => `${doc.outcomes[0]?.response ?? ''}\n\n`));
    const entry = generateUntilResultEntry(task, scoreGenerateUntil(task, responses));
    for (const [filter, values] of Object.entries(recorded.aggregate)) {
      expect(entry[`exact_match,${filter}`]).toBe(values.exact_match);
      expect(entry[`exact_match_stderr,${filter}`]).toBe(values.exact_match_stderr);
    }
  });
});
