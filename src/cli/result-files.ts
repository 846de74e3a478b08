/**
 * Where a command's results go, and writing them: the tables to stdout, the results JSON to --output and/or
 * --output-path (lm-eval's layout), samples to --log-samples. The eval command and merge share it, so a merged
 * run lands in the same files, in the same form, as an unsharded one.
 */
import { statSync, type Stats } from 'node:fs';
import path from 'node:path';
import type { EvaluateResult } from '../run/run-results.js';
import { stringifyResults } from '../eval/results-json.js';
import { outputFolderName } from '../eval/run-facts.js';
import { writeResultOutput } from '../io/result-output.js';
import type { EvalOutputs } from './result-flags.js';
import type { CliIo } from './exit-error.js';
import { ExitError } from './exit-error.js';
import { lmEvalOutputFiles, lmEvalSampleLine, type LmEvalOutputFiles } from './lm-eval-output.js';
import { renderBreakdownTables, renderResultsTable } from './table.js';

export interface ResultFilesPlan {
  readonly outputs: EvalOutputs;
  /** --output-path's files, named after the model and the start time. */
  readonly layout?: LmEvalOutputFiles;
}

/**
 * An output path that can never be written is a usage mistake, found before an hour of scoring rather than
 * after, so every path is checked up front.
 */
export function planResultFiles(outputs: EvalOutputs, modelName: string, startedAt: Date): ResultFilesPlan {
  const layout = outputs.outputPath === undefined ? undefined : lmEvalOutputFiles(outputs.outputPath, outputFolderName(modelName), startedAt);
  checkOutputPath(outputs.output, '--output');
  checkOutputPath(layout?.results, '--output-path');
  checkOutputPath(outputs.samplesFile, '--log-samples');
  return layout === undefined ? { outputs } : { outputs, layout };
}

export function printResultTables({ results }: EvaluateResult, showBreakdowns: boolean, io: CliIo): void {
  io.stdout.write(`${renderResultsTable(results)}\n`);
  if (results.groups && Object.keys(results.groups).length > 0) io.stdout.write(`\n${renderResultsTable(results, 'groups')}\n`);
  if (showBreakdowns) for (const table of renderBreakdownTables(results.mlrb.breakdowns)) io.stdout.write(`\n${table}\n`);
}

/** Writes the files; `note` says where each went (a command's CommandStatus.note, silent under --quiet). */
export function writeResultFiles({ results, samples }: EvaluateResult, { outputs, layout }: ResultFilesPlan, note: (line: string) => void): void {
  const json = stringifyResults(results);
  for (const [file, flag] of [
    [outputs.output, '--output'],
    [layout?.results, '--output-path'],
  ] as const) {
    if (file === undefined) continue;
    writeResultOutput(file, json, flag);
    note(`results written to ${file}`);
  }
  if (outputs.samplesFile && samples) {
    const lines = [...samples].flatMap(([task, records]) => records.map((record) => JSON.stringify({ task, ...record })));
    writeResultOutput(outputs.samplesFile, `${lines.join('\n')}\n`, '--log-samples');
    note(`samples written to ${outputs.samplesFile}`);
  }
  if (layout && outputs.samplesBesideResults && samples) {
    for (const [task, records] of samples) writeResultOutput(layout.samples(task), `${records.map(lmEvalSampleLine).join('\n')}\n`, '--log-samples');
    note(`samples written beside ${layout.results}`);
  }
}

/** The target must not be a folder, and the nearest part of its path that exists must be a folder. */
export function checkOutputPath(file: string | undefined, flag: string): void {
  if (file === undefined) return;
  const target = path.resolve(file);
  if (statOrNull(target)?.isDirectory()) throw new ExitError(2, `${flag} ${file} is a directory; name a file`);
  for (let ancestor = path.dirname(target); ; ancestor = path.dirname(ancestor)) {
    const stats = statOrNull(ancestor);
    if (stats !== null) {
      if (!stats.isDirectory()) throw new ExitError(2, `${flag} ${file} cannot be created: ${ancestor} is not a directory`);
      return;
    }
    if (path.dirname(ancestor) === ancestor) return;
  }
}

function statOrNull(file: string): Stats | null {
  try {
    return statSync(file);
  } catch {
    return null;
  }
}
