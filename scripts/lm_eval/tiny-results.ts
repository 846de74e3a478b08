/**
 * Writes our results JSON for the tiny fixture run (test/support/lm-eval-tiny-run.ts) to the path given, for
 * render_table.py to hand to lm-eval's make_table. Usage: tsx scripts/lm_eval/tiny-results.ts OUT.json
 */
import { writeFileSync } from 'node:fs';
import { stringifyResults } from '../../src/eval/results-json.js';
import { runTinyLmEvalFixture } from '../../test/support/lm-eval-tiny-run.js';

const [out] = process.argv.slice(2);
if (out === undefined) throw new Error('usage: tsx scripts/lm_eval/tiny-results.ts OUT.json');
const run = await runTinyLmEvalFixture();
if (run.code !== 0) throw new Error(`tiny run failed (${run.code}): ${run.stderr}`);
writeFileSync(out, stringifyResults(run.results));
