/**
 * MMLU as lm-eval's `mmlu` group (lm_eval/tasks/mmlu/default, v0.4.4–v0.4.8): one task per subject over the
 * test split, few-shot examples from the dev split with the first_n sampler, four category groups and the
 * `mmlu` group over them, all weighted by size.
 */
import { MlrbError } from '../../errors.js';
import { checkLimit } from '../data-files.js';
import { pythonStrip } from '../../text/python-text.js';
import { markPartialGroups, refuseIncomplete } from '../partial.js';
import { buildTask, type MultipleChoiceTaskSpec } from '../task-spec.js';
import type { MultipleChoiceTask, Suite, SuiteLoadOptions, TaskGroup } from '../types.js';
import type { MmluDoc } from './rows.js';
import type { MmluSource } from './source-types.js';
import { openMmluSource } from './sources.js';
import {
  MMLU_CATEGORIES,
  MMLU_CATEGORY_ALIASES,
  MMLU_SUBJECT_CATEGORIES,
  MMLU_SUBJECTS,
  isMmluSubject,
  mmluDescription,
  type MmluCategory,
} from './subjects.js';

export interface MmluLoadOptions extends SuiteLoadOptions {
  /** lm-eval's --num_fewshot; 0 when absent (lm-eval's default for MMLU). */
  readonly numFewshot?: number;
  /** Subjects to load (default: all 57). */
  readonly subjects?: readonly string[];
}

/** `_default_template_yaml` metadata.version. */
const TASK_VERSION = 1;
/** `_mmlu.yaml` and `_mmlu_<category>.yaml` metadata.version. */
const GROUP_VERSION = 2;
const DOC_TO_TEXT = '{{question.strip()}}\nA. {{choices[0]}}\nB. {{choices[1]}}\nC. {{choices[2]}}\nD. {{choices[3]}}\nAnswer:';
const LETTERS = ['A', 'B', 'C', 'D'] as const;

/** Bad options throw synchronously (RangeError); data problems reject with MlrbError BAD_DATA. */
export function loadMmluSuite(options: MmluLoadOptions): Promise<Suite<MultipleChoiceTask>> {
  const numFewshot = options.numFewshot ?? 0;
  if (!Number.isInteger(numFewshot) || numFewshot < 0) {
    throw new RangeError(`numFewshot must be a non-negative integer; got ${String(options.numFewshot)}`);
  }
  checkLimit(options.limit);
  const subjects = selectSubjects(options.subjects);
  return loadSubjects(options, subjects, numFewshot);
}

async function loadSubjects(options: MmluLoadOptions, subjects: readonly string[], numFewshot: number): Promise<Suite<MultipleChoiceTask>> {
  const source = await openMmluSource(options.dataDir);
  const dir = source.dir;
  // Only the full suite must be complete; a subject asked for by name must be there, and its missing file is
  // then the error.
  const absent: string[] = [];
  if (options.subjects === undefined) for (const subject of subjects) if (!(await source.has(subject))) absent.push(subject);
  const present = subjects.filter((subject) => !absent.includes(subject));
  const missing = absent.map((subject) => `mmlu_${subject}`);
  refuseIncomplete({ suiteLabel: 'MMLU', dir, missing, expected: MMLU_SUBJECTS.length, present: present.length, allowPartial: options.allowPartial });
  const tasks = await Promise.all(present.map((subject) => loadSubject(source, subject, numFewshot, options.limit)));
  const groups = mmluGroups(present);
  if (missing.length === 0) return { name: 'mmlu', tasks, groups };
  const affected = new Set(['mmlu', ...absent.map((subject) => `mmlu_${MMLU_SUBJECT_CATEGORIES[subject] as MmluCategory}`)]);
  return { name: 'mmlu', tasks, groups: markPartialGroups(groups, affected, missing, MMLU_SUBJECTS.length), missing };
}

function selectSubjects(requested: readonly string[] | undefined): readonly string[] {
  if (requested === undefined) return MMLU_SUBJECTS;
  const unknown = requested.filter((subject) => !isMmluSubject(subject));
  if (unknown.length > 0) {
    throw new RangeError(`unknown MMLU subject(s): ${unknown.join(', ')}; known subjects: ${MMLU_SUBJECTS.join(', ')}`);
  }
  if (requested.length === 0) throw new RangeError('subjects must name at least one MMLU subject');
  return [...new Set(requested)].sort();
}

async function loadSubject(source: MmluSource, subject: string, numFewshot: number, limit: number | undefined): Promise<MultipleChoiceTask> {
  const { test, dev } = await source.splits(subject);
  // Under --limit only the test rows it takes are parsed; the rest are counted. The dev split is the few-shot pool.
  const [{ docs, total }, fewshotDocs] = await Promise.all([test.readLimited(limit), dev.read()]);
  if (total === 0) {
    throw new MlrbError('BAD_DATA', `MMLU test file for ${subject} has no rows: ${test.file}`, { file: test.file });
  }
  return buildTask(mmluSpec(subject), { docs, fewshotDocs, sourceFiles: [...test.sourceFiles, ...dev.sourceFiles], numFewshot, totalDocs: total });
}

/** `_default_template_yaml` with the subject's description; the question is stripped (Python's str.strip). */
function mmluSpec(subject: string): MultipleChoiceTaskSpec<MmluDoc> {
  const category = MMLU_SUBJECT_CATEGORIES[subject] as MmluCategory;
  return {
    name: `mmlu_${subject}`,
    version: TASK_VERSION,
    description: mmluDescription(subject),
    docToText: (doc) => `${pythonStrip(doc.question)}\n${LETTERS.map((letter, index) => `${letter}. ${doc.choices[index] ?? ''}`).join('\n')}\nAnswer:`,
    docToChoices: () => LETTERS,
    docToTarget: (doc) => doc.answer,
    metrics: ['acc'],
    fewshot: { sampler: 'first_n', drawsExtra: false },
    tags: { category },
    lmEval: {
      alias: subject,
      tag: `mmlu_${category}_tasks`,
      datasetPath: 'hails/mmlu_no_train',
      datasetName: subject,
      splits: { test_split: 'test', fewshot_split: 'dev' },
      docToText: DOC_TO_TEXT,
      docToTarget: 'answer',
      docToChoice: LETTERS,
      shouldDecontaminate: false,
    },
  };
}

/** Category groups hold the loaded subjects (alphabetical); `mmlu` holds the non-empty categories in `_mmlu.yaml` order. */
function mmluGroups(subjects: readonly string[]): TaskGroup[] {
  const categoryGroups: TaskGroup[] = [];
  for (const category of MMLU_CATEGORIES) {
    const members = subjects.filter((subject) => MMLU_SUBJECT_CATEGORIES[subject] === category);
    if (members.length === 0) continue;
    categoryGroups.push({
      name: `mmlu_${category}`,
      alias: MMLU_CATEGORY_ALIASES[category],
      subtasks: members.map((subject) => `mmlu_${subject}`),
      weightBySize: true,
      version: GROUP_VERSION,
    });
  }
  const top: TaskGroup = { name: 'mmlu', subtasks: categoryGroups.map((group) => group.name), weightBySize: true, version: GROUP_VERSION };
  return [top, ...categoryGroups.sort((a, b) => compareNames(a.name, b.name))];
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
