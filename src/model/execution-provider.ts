/**
 * The provider policy, which TS owns: 'cpu' and 'cuda' load on that provider (an unusable CUDA is an
 * MlrbError CUDA_UNAVAILABLE that names the provider library); 'auto' tries CUDA and, when it is
 * unavailable, says so once per process and loads on the CPU.
 */
import { isMlrbError, type MlrbError } from '../errors.js';
import type { ExecutionProvider } from '../native/binding.js';

export type ProviderChoice = ExecutionProvider | 'auto';

export const PROVIDER_CHOICES = ['cpu', 'cuda', 'auto'] as const satisfies readonly ProviderChoice[];

export interface OpenedSession<Session> {
  readonly session: Session;
  /** What actually runs the forward pass. */
  readonly provider: ExecutionProvider;
}

/** Set by the first 'auto' load that found CUDA unavailable: later ones go straight to the CPU. */
let cudaUnavailable: MlrbError | undefined;

export async function openSession<Session>(
  load: (provider: ExecutionProvider) => Promise<Session>,
  choice: ProviderChoice,
  warn: (message: string) => void,
): Promise<OpenedSession<Session>> {
  if (choice !== 'auto') return { session: await load(choice), provider: choice };
  if (cudaUnavailable === undefined) {
    try {
      return { session: await load('cuda'), provider: 'cuda' };
    } catch (error) {
      if (!isMlrbError(error) || error.code !== 'CUDA_UNAVAILABLE') throw error;
      cudaUnavailable = error;
      warn(`--provider auto: scoring on the CPU, since CUDA is unavailable: ${error.message}`);
    }
  }
  return { session: await load('cpu'), provider: 'cpu' };
}
