/**
 * The tracks `check-track` judges and the options of checkTrack(), parsed once at the library boundary with
 * zod. The CLI maps its flags onto the same schema, so both reject the same mistakes with the same messages.
 */
import { z } from 'zod';
import { EDGE_TRACKS, type EdgeTrack } from '../dram/dram-check.js';
import { DRAM_PROVIDERS, type DramProbeProgress } from '../dram/measure.js';

/** The edge tracks by name; their DRAM budgets and descriptions live with the DRAM check (EDGE_TRACKS). */
export const TRACK_NAMES = Object.keys(EDGE_TRACKS) as [EdgeTrack, ...EdgeTrack[]];

export const trackCheckOptionsSchema = z.strictObject({
  /**
   * edge-compression only: the model the submission was pruned from, as an ONNX file or a Hugging Face
   * config.json. Default: Phi-2's config.json, shipped with the package.
   */
  base: z.string().min(1).optional(),
  /**
   * Operator override of the track's DRAM limit, in bytes (a track is judged at its own limit otherwise).
   * For rehearsing a stricter device, or for tests that need a small model to be over a limit.
   */
  dramBudgetBytes: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  /**
   * Measure peak DRAM in a child process (default). false judges the estimate alone, and the verdict warns:
   * the tracks are checked on the measurement.
   */
  measureDram: z.boolean().default(true),
  /** Where the DRAM measurement runs: 'cpu' judges peak RSS, 'cuda' peak device memory. */
  provider: z.enum(DRAM_PROVIDERS).default('cpu'),
  /** Threads for ONNX Runtime (DRAM measurement, forward pass) and the zero scan. */
  threads: z.number().int().nonnegative().optional(),
  ortLibrary: z.string().min(1).optional(),
  /** Told as each check starts, and of the DRAM measurement's stages (its child process takes the longest). */
  onProgress: z.custom<(progress: TrackCheckProgress) => void>((value) => typeof value === 'function').optional(),
});

/** How far checkTrack() has got. */
export type TrackCheckProgress = { readonly check: 'pruning' } | { readonly check: 'graph' } | ({ readonly check: 'dram' } & DramProbeProgress);

export type TrackCheckOptions = z.input<typeof trackCheckOptionsSchema>;
export type ResolvedTrackCheckOptions = z.output<typeof trackCheckOptionsSchema>;

/** A bad track is a RangeError and bad options a TypeError naming every problem, before any work starts. */
export function parseTrackCheckArguments(track: unknown, options: unknown): { track: EdgeTrack; options: ResolvedTrackCheckOptions } {
  const parsedTrack = z.enum(TRACK_NAMES).safeParse(track);
  if (!parsedTrack.success) throw new RangeError(`unknown track ${JSON.stringify(track)} (known: ${TRACK_NAMES.join(', ')})`);
  const parsed = trackCheckOptionsSchema.safeParse(options ?? {});
  if (!parsed.success) throw new TypeError(`invalid checkTrack options:\n${z.prettifyError(parsed.error)}`);
  // Only the compression track compares with a base; a base given for another track is a mistake to report.
  if (parsed.data.base !== undefined && parsedTrack.data !== 'edge-compression') {
    throw new TypeError(`base (--base) applies only to edge-compression: the ${parsedTrack.data} track has no base model`);
  }
  return { track: parsedTrack.data, options: parsed.data };
}
