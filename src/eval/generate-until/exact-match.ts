/**
 * lm-eval's exact_match metric (lm_eval/api/metrics.py exact_match_hf_evaluate, a port of HF evaluate's
 * exact_match), for one prediction and one reference as a generate_until task's process_results calls it:
 *   1. each of regexes_to_ignore, in order, is removed from both (Python re.sub with "");
 *   2. ignore_case: both are lower-cased by numpy.char.lower: Python's str.lower (full Unicode mapping, final
 *      sigma), cut to the array's width, the string's length before it (so "İ", whose lower case is "i̇", gives "i");
 *   3. ignore_punctuation / ignore_numbers: ASCII punctuation (string.punctuation) / ASCII digits are deleted;
 *   4. the score is mean(prediction == reference) over the one pair: 1 or 0.
 * Every step passes the strings through a numpy array of dtype str, which drops trailing NUL characters, so
 * "7\0" equals "7" (and a NUL a removed pattern leaves at the end goes too).
 */
import { pythonSub, translatePythonRegex, type PythonRegex } from '../../text/python-regex.js';
import type { ExactMatchOptions } from '../../tasks/generate-until-types.js';

/** Python's string.punctuation. */
const ASCII_PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
const ASCII_DIGITS = /[0-9]/g;
const TRAILING_NULS = /\0+$/;

export type ExactMatch = (prediction: string, reference: string) => 0 | 1;

/** Translates the patterns once (a pattern with no JS translation is a RangeError); returns the scorer. */
export function createExactMatch(options: ExactMatchOptions): ExactMatch {
  const ignored: readonly PythonRegex[] = options.regexesToIgnore.map(translatePythonRegex);
  const normalize = (text: string): string => {
    let value = dropTrailingNuls(text);
    for (const regex of ignored) value = dropTrailingNuls(pythonSub(regex, '', value));
    if (options.ignoreCase) value = lowerInWidth(value);
    if (options.ignorePunctuation) value = dropTrailingNuls(value.replace(ASCII_PUNCTUATION, ''));
    if (options.ignoreNumbers) value = dropTrailingNuls(value.replace(ASCII_DIGITS, ''));
    return value;
  };
  return (prediction, reference) => (normalize(prediction) === normalize(reference) ? 1 : 0);
}

/** numpy.char.lower on a one-string array: the lower case in as many code points as the string had. */
function lowerInWidth(text: string): string {
  const width = [...text].length;
  const lower = [...text.toLowerCase()];
  return lower.length > width ? lower.slice(0, width).join('') : lower.join('');
}

function dropTrailingNuls(text: string): string {
  return text.replace(TRAILING_NULS, '');
}
