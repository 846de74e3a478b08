/**
 * lm-eval's filters for generated responses (lm_eval/filters/extraction.py RegexFilter, selection.py
 * TakeFirstFilter), applied to one document's responses (one per repeat) as a pipeline of steps:
 *   regex       each response becomes re.findall(pattern, response)[group_select] (Python indexing); a match
 *               that is a tuple (a pattern with several groups) gives its first non-empty group, or the fallback
 *               when all are empty; the result is str.strip()ped. No match gives the fallback.
 *   take_first  the responses become the first of them.
 * Patterns are Python's; they run with Python's meaning (src/text/python-regex.ts).
 */
import { MlrbError } from '../../errors.js';
import { pythonFindall, translatePythonRegex, type PythonRegex } from '../../text/python-regex.js';
import { pythonStrip } from '../../text/python-text.js';
import type { FilterPipeline, FilterStep } from '../../tasks/generate-until-types.js';

/** What a pipeline leaves for a document: responses, or one response once take_first has run. */
export type FilteredResponse = string | readonly string[];

/** A pipeline with its patterns translated once; apply it to each document's responses. */
export interface CompiledPipeline {
  readonly name: string;
  readonly apply: (responses: readonly string[]) => FilteredResponse;
}

/** Translates every pattern now (RangeError for one with no JS translation), not once per response. */
export function compilePipeline(pipeline: FilterPipeline): CompiledPipeline {
  const steps = pipeline.steps.map((step) => compileStep(pipeline.name, step));
  return {
    name: pipeline.name,
    apply: (responses) => steps.reduce<FilteredResponse>((value, step) => step(value), responses),
  };
}

type CompiledStep = (value: FilteredResponse) => FilteredResponse;

function compileStep(pipeline: string, step: FilterStep): CompiledStep {
  if (step.function === 'take_first') {
    return (value) => {
      const responses = asList(pipeline, step.function, value);
      if (responses.length === 0) throw new MlrbError('INTERNAL', `filter ${pipeline}: take_first got no responses`);
      return responses[0] ?? '';
    };
  }
  const regex = translatePythonRegex(step.regexPattern);
  return (value) => asList(pipeline, step.function, value).map((response) => regexExtract(regex, step.groupSelect, step.fallback, response));
}

/** RegexFilter on one response (see the file comment). */
export function regexExtract(regex: PythonRegex, groupSelect: number, fallback: string, response: string): string {
  const matches = pythonFindall(regex, response);
  if (matches.length === 0) return fallback;
  const index = groupSelect < 0 ? matches.length + groupSelect : groupSelect;
  const match = matches[index];
  // Python raises IndexError here; lm-eval's run would stop, so ours does too.
  if (match === undefined) {
    throw new RangeError(`regex filter: group_select ${groupSelect} is out of range for the ${matches.length} matches of ${JSON.stringify(regex.pattern)}`);
  }
  if (typeof match === 'string') return pythonStrip(match);
  return pythonStrip(match.find((group) => group !== '') ?? fallback);
}

function asList(pipeline: string, step: string, value: FilteredResponse): readonly string[] {
  if (typeof value === 'string') {
    throw new MlrbError('INTERNAL', `filter ${pipeline}: ${step} needs the list of responses, but an earlier take_first already chose one`);
  }
  return value;
}
