/**
 * Runs planned forward passes with up to `concurrency` in flight, packing the next one while the launched ones
 * run on native worker threads. Shared by the causal and the encoder-decoder scorers.
 */

/**
 * `pack` turns a job into what the model takes; `run` scores it. Resolves once every pass has settled; a failed
 * pass rejects, after the others in flight have settled (they may still hold native resources).
 */
export async function runJobs<Job, Packed>(
  jobs: readonly Job[],
  pack: (job: Job) => Packed,
  run: (job: Job, packed: Packed) => Promise<void>,
  concurrency: number,
): Promise<void> {
  const inFlight = new Set<Promise<void>>();
  try {
    let packed = jobs.length > 0 ? pack(jobs[0] as Job) : undefined;
    for (let index = 0; index < jobs.length && packed !== undefined; index += 1) {
      while (inFlight.size >= concurrency) await Promise.race(inFlight);
      const running: Promise<void> = run(jobs[index] as Job, packed).finally(() => inFlight.delete(running));
      inFlight.add(running);
      packed = index + 1 < jobs.length ? pack(jobs[index + 1] as Job) : undefined;
    }
    await Promise.all(inFlight);
  } finally {
    await Promise.allSettled(inFlight);
  }
}
