/**
 * MLRB's own sources, by the commits read, so every citation in the task definitions (src/mlrb/definitions/)
 * names a file and lines anyone can open. Where the sources disagree, a run follows the task prompt (what the
 * agents were told), unless its command cannot run; then the paper; then run.sh. The record names the one
 * it followed.
 */

export const MLRB_SOURCES = {
  prompt: {
    label: 'task prompt',
    where: 'AlgorithmicResearchGroup/ML-Research-Agent-Tasks@6ba8479 mlrb_agent_tasks/prompts.py',
    file: 'prompts.py',
  },
  paper: { label: 'paper', where: 'Kenney, "ML Research Benchmark", arXiv 2410.22553 (v1)', file: 'paper' },
  run_sh: {
    label: 'run.sh',
    // Removed from the repository in 7ebaf1a ("cleanup"); 675c18c is its last version.
    where: 'AlgorithmicResearchGroup/ML-Research-Agent-Evals@675c18c run.sh',
    file: 'run.sh',
  },
  run_evals_sh: { label: 'run_evals.sh', where: 'AlgorithmicResearchGroup/ML-Research-Agent-Evals@675c18c run_evals.sh', file: 'run_evals.sh' },
  run_mini_evals_sh: {
    label: 'run_mini_evals.sh',
    where: 'AlgorithmicResearchGroup/ML-Research-Agent-Evals@675c18c run_mini_evals.sh',
    file: 'run_mini_evals.sh',
  },
  agent_eval: { label: 'agent_eval', where: 'AlgorithmicResearchGroup/ML-Research-Agent-Evals@382eddb agent_eval/', file: 'agent_eval/' },
  readme: {
    label: 'README',
    where: 'ML-Research-Agent-Tasks@6ba8479 mlrb_agent_tasks/full_benchmark/<task>/README.md; ML-Research-Agent-Evals@382eddb README.md',
    file: 'README.md',
  },
} as const;

export type MlrbSourceId = keyof typeof MLRB_SOURCES;

/** What one source runs or says for a task variant, and where it says it. */
export interface SourceReading {
  readonly source: MlrbSourceId;
  /** File and lines in the source's commit (`prompts.py:102-109`); the paper has no lines. */
  readonly at: string;
  /** What it runs or says, in a few words (`lm_eval --tasks blimp`). */
  readonly says: string;
}

/** `task prompt (prompts.py:102-109): lm_eval --tasks blimp` */
export function describeReading(reading: SourceReading): string {
  return `${MLRB_SOURCES[reading.source].label} (${reading.at}): ${reading.says}`;
}
