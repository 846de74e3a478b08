/** The few lines a person reads first about a math-reasoning run (the JSON report has everything). */
import type { MathReasoningReport } from './score.js';

export function summarizeMathReasoning(report: MathReasoningReport): string {
  const { metrics } = report;
  const lines = [
    `math reasoning: ${report.problems_scored} of ${report.problems_in_file} problems from ${report.data_file}`,
    `  ROUGE-L (mean F): ${metrics.rouge_l.toFixed(4)}`,
    `  BLEU (sacrebleu corpus): ${metrics.bleu.toFixed(2)}`,
  ];
  if (metrics.lean === null) {
    lines.push('  Lean: not checked (no --lean)');
  } else {
    const { compiled, failed, timed_out: timedOut, compile_rate: rate } = metrics.lean;
    lines.push(`  Lean: ${(rate * 100).toFixed(1)}% compiled (${compiled} compiled, ${failed} failed, ${timedOut} timed out)`);
    const sandbox = report.settings.lean_sandbox;
    if (sandbox !== null && sandbox !== 'namespaces') {
      lines.push(
        `  Lean ran in the ${sandbox} box: no network namespace here${sandbox === 'process-group' ? ', and a compiler child that leaves its process group outlives the compile' : ''} (docs/math-reasoning.md)`,
      );
    }
  }
  const truncated = report.problems.filter((problem) => problem.prompt_truncated).length;
  if (truncated > 0) lines.push(`  ${truncated} prompt(s) were longer than ${report.settings.max_prompt_tokens} tokens and lost their end`);
  return `${lines.join('\n')}\n`;
}
