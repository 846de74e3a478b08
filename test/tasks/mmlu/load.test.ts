import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MlrbError } from '../../../src/errors.js';
import { loadMmluSuite } from '../../../src/tasks/mmlu/load.js';
import type { MultipleChoiceDoc, MultipleChoiceTask } from '../../../src/tasks/types.js';

interface Row {
  readonly question: string;
  readonly choices: readonly [string, string, string, string];
  readonly answer: 0 | 1 | 2 | 3;
}

const FIXTURE: Record<string, { dev: Row[]; test: Row[] }> = {
  anatomy: {
    dev: [
      { question: 'Which organ pumps blood?', choices: ['Lung', 'Heart', 'Liver', 'Kidney'], answer: 1 },
      { question: 'How many lungs?', choices: ['1', '2', '3', '4'], answer: 1 },
    ],
    test: [
      { question: '  What is the "largest" bone, in adults?\n', choices: ['Femur', ' Tibia', 'Humerus, arm', 'Stapes'], answer: 0 },
      { question: 'Line one\nline two', choices: ['a', 'b', 'c', 'd'], answer: 3 },
      { question: 'Third?', choices: ['w', 'x', 'y', 'z'], answer: 2 },
    ],
  },
  philosophy: {
    dev: [{ question: 'Who wrote the Republic?', choices: ['Plato', 'Kant', 'Hume', 'Locke'], answer: 0 }],
    test: [{ question: 'Cogito, ergo sum?', choices: ['Descartes', 'Spinoza', 'Leibniz', 'Pascal'], answer: 0 }],
  },
};

const quote = (field: string): string => (/[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field);

/** Writes the fixture in one of the two layouts: header + indices + LF, or no header + letters + CRLF. */
async function writeFixture(root: string, layout: 'headered' | 'hendrycks'): Promise<void> {
  const newline = layout === 'headered' ? '\n' : '\r\n';
  for (const split of ['dev', 'test'] as const) {
    await mkdir(join(root, 'mmlu', split), { recursive: true });
    for (const [subject, splits] of Object.entries(FIXTURE)) {
      const lines = splits[split].map((row) =>
        [row.question, ...row.choices, layout === 'headered' ? String(row.answer) : ('ABCD'[row.answer] ?? '?')].map(quote).join(','),
      );
      if (layout === 'headered') lines.unshift('question,choice0,choice1,choice2,choice3,answer');
      await writeFile(join(root, 'mmlu', split, `${subject}_${split}.csv`), lines.join(newline) + newline);
    }
  }
}

/** The context lm-eval builds (see src/tasks/types.ts): description + k few-shot blocks + the document's text. */
function lmEvalContext(task: MultipleChoiceTask, doc: MultipleChoiceDoc): string {
  const examples = (task.fewshot?.docs ?? []).slice(0, task.numFewshot ?? 0);
  const blocks = examples.map((example) => example.text + task.targetDelimiter + (example.choices[example.target] ?? '') + task.fewshotDelimiter);
  return task.description + blocks.join('') + doc.text;
}

let root: string;
const dirs: Record<'headered' | 'hendrycks', string> = { headered: '', hendrycks: '' };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'mlrb-mmlu-'));
  for (const layout of ['headered', 'hendrycks'] as const) {
    dirs[layout] = join(root, layout);
    await writeFixture(dirs[layout], layout);
  }
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const load = (layout: 'headered' | 'hendrycks', numFewshot = 0, limit?: number): ReturnType<typeof loadMmluSuite> =>
  loadMmluSuite({ dataDir: dirs[layout], subjects: ['philosophy', 'anatomy'], numFewshot, ...(limit !== undefined ? { limit } : {}) });

const taskNamed = (tasks: readonly MultipleChoiceTask[], name: string): MultipleChoiceTask => {
  const task = tasks.find((candidate) => candidate.name === name);
  if (task === undefined) throw new Error(`no task ${name}`);
  return task;
};

describe('loadMmluSuite on fixture files', () => {
  it('reads the headered (0-3) and the original Hendrycks (A-D, no header, CRLF) layouts into identical docs', async () => {
    const [headered, hendrycks] = await Promise.all([load('headered', 1), load('hendrycks', 1)]);
    const strip = (tasks: readonly MultipleChoiceTask[]): unknown => tasks.map((task) => ({ name: task.name, docs: task.docs, fewshot: task.fewshot?.docs }));
    expect(strip(hendrycks.tasks)).toEqual(strip(headered.tasks));
    expect(headered.tasks.map((task) => task.docs.length)).toEqual([3, 1]);
  });

  it('builds lm-eval mmlu prompts: stripped question, unstripped choices, letters as choices', async () => {
    const suite = await load('hendrycks');
    const anatomy = taskNamed(suite.tasks, 'mmlu_anatomy');
    expect(anatomy.description).toBe('The following are multiple choice questions (with answers) about anatomy.\n\n');
    expect(anatomy.docs[0]?.text).toBe('What is the "largest" bone, in adults?\nA. Femur\nB.  Tibia\nC. Humerus, arm\nD. Stapes\nAnswer:');
    expect(anatomy.docs[1]?.text).toBe('Line one\nline two\nA. a\nB. b\nC. c\nD. d\nAnswer:');
    expect(anatomy.docs.map((doc) => [doc.docId, doc.target])).toEqual([
      [0, 0],
      [1, 3],
      [2, 2],
    ]);
    expect(anatomy.docs[0]?.choices).toEqual(['A', 'B', 'C', 'D']);
    expect(anatomy).toMatchObject({ version: 1, targetDelimiter: ' ', fewshotDelimiter: '\n\n', metrics: ['acc'], tags: { category: 'stem' } });
    expect(anatomy.docs[0]?.source).toEqual({
      question: '  What is the "largest" bone, in adults?\n',
      subject: 'anatomy',
      choices: ['Femur', ' Tibia', 'Humerus, arm', 'Stapes'],
      answer: 0,
    });
  });

  it('gives the exact 0-shot and 1-shot contexts (first_n from dev)', async () => {
    const zeroShot = taskNamed((await load('headered', 0)).tasks, 'mmlu_anatomy');
    const oneShot = taskNamed((await load('headered', 1)).tasks, 'mmlu_anatomy');
    expect(oneShot.fewshot?.sampler).toBe('first_n');
    expect(lmEvalContext(zeroShot, zeroShot.docs[0] as MultipleChoiceDoc)).toBe(
      'The following are multiple choice questions (with answers) about anatomy.\n\n' +
        'What is the "largest" bone, in adults?\nA. Femur\nB.  Tibia\nC. Humerus, arm\nD. Stapes\nAnswer:',
    );
    expect(lmEvalContext(oneShot, oneShot.docs[2] as MultipleChoiceDoc)).toBe(
      'The following are multiple choice questions (with answers) about anatomy.\n\n' +
        'Which organ pumps blood?\nA. Lung\nB. Heart\nC. Liver\nD. Kidney\nAnswer: B\n\n' +
        'Third?\nA. w\nB. x\nC. y\nD. z\nAnswer:',
    );
  });

  it('names tasks mmlu_<subject> and builds weighted category groups under mmlu', async () => {
    const suite = await load('headered');
    expect(suite.tasks.map((task) => task.name)).toEqual(['mmlu_anatomy', 'mmlu_philosophy']);
    expect(suite.groups).toEqual([
      { name: 'mmlu', subtasks: ['mmlu_stem', 'mmlu_humanities'], weightBySize: true, version: 2 },
      { name: 'mmlu_humanities', alias: 'humanities', subtasks: ['mmlu_philosophy'], weightBySize: true, version: 2 },
      { name: 'mmlu_stem', alias: 'stem', subtasks: ['mmlu_anatomy'], weightBySize: true, version: 2 },
    ]);
  });

  it('limit keeps the first N test docs per subject and remembers the full count', async () => {
    const anatomy = taskNamed((await load('headered', 0, 2)).tasks, 'mmlu_anatomy');
    expect(anatomy.docs.map((doc) => doc.docId)).toEqual([0, 1]);
    expect(anatomy.totalDocs).toBe(3);
  });

  it('accepts the suite folder itself as dataDir', async () => {
    const suite = await loadMmluSuite({ dataDir: join(dirs.headered, 'mmlu'), subjects: ['anatomy'] });
    expect(suite.tasks).toHaveLength(1);
  });

  it('BAD CALL – unknown subjects, a negative numFewshot and a zero limit throw synchronously', () => {
    expect(() => loadMmluSuite({ dataDir: dirs.headered, subjects: ['astrology'] })).toThrow(RangeError);
    expect(() => loadMmluSuite({ dataDir: dirs.headered, numFewshot: -1 })).toThrow(RangeError);
    expect(() => loadMmluSuite({ dataDir: dirs.headered, limit: 0 })).toThrow(RangeError);
  });
});

describe('loadMmluSuite on broken files', () => {
  const writeBroken = async (name: string, testCsv: string): Promise<string> => {
    const dir = join(root, name);
    await mkdir(join(dir, 'test'), { recursive: true });
    await mkdir(join(dir, 'dev'), { recursive: true });
    await writeFile(join(dir, 'test', 'anatomy_test.csv'), testCsv);
    await writeFile(join(dir, 'dev', 'anatomy_dev.csv'), 'q,a,b,c,d,A\n');
    return dir;
  };
  const failure = async (dir: string): Promise<MlrbError> => {
    const error: unknown = await loadMmluSuite({ dataDir: dir, subjects: ['anatomy'] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MlrbError);
    return error as MlrbError;
  };

  it('EXPECTED FAILURE – a bad answer names the file and the line the row starts on', async () => {
    const dir = await writeBroken('bad-answer', 'question,choice0,choice1,choice2,choice3,answer\n"two\nlines",a,b,c,d,1\nq,a,b,c,d,7\n');
    const error = await failure(dir);
    expect(error.code).toBe('BAD_DATA');
    expect(error.message).toContain(join(dir, 'test', 'anatomy_test.csv'));
    expect(error.message).toContain('line 4');
    expect(error.message).toContain('answer');
    expect(error.details).toMatchObject({ file: join(dir, 'test', 'anatomy_test.csv'), line: 4 });
  });

  it('EXPECTED FAILURE – a letter answer in a headered file is rejected with a hint', async () => {
    const error = await failure(await writeBroken('letter-in-headered', 'question,choice0,choice1,choice2,choice3,answer\nq,a,b,c,d,B\n'));
    expect(error.message).toMatch(/line 2.*header row.*0-3/);
  });

  it('EXPECTED FAILURE – a row with the wrong number of fields', async () => {
    const error = await failure(await writeBroken('short-row', 'q,a,b,c,d,A\nq,a,b,c,A\n'));
    expect(error.message).toMatch(/anatomy_test\.csv line 2: expected 6 fields .* found 5/);
  });

  it('EXPECTED FAILURE – malformed CSV (unclosed quote) names file and line', async () => {
    const error = await failure(await writeBroken('unclosed', 'q,a,b,c,d,A\n"open,a,b,c,d,A\n'));
    expect(error.code).toBe('BAD_DATA');
    expect(error.message).toMatch(/anatomy_test\.csv line 2: malformed CSV/);
  });

  it('EXPECTED FAILURE – a missing subject file or data folder is named', async () => {
    const dir = await writeBroken('missing-dev', 'q,a,b,c,d,A\n');
    await rm(join(dir, 'dev', 'anatomy_dev.csv'));
    expect((await failure(dir)).message).toMatch(/MMLU dev file for anatomy not found: .*anatomy_dev\.csv/);
    expect((await failure(join(root, 'nowhere'))).message).toMatch(/no mmlu data under/);
  });
});
