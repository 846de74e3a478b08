/**
 * The inputs the DRAM measurement runs, each in its own child process (dram/probe.ts), the verdict taking the
 * largest peak. The NeurIPS'24 Edge-LLM kit measured one forward pass on 2,000 tokens of real text; a graph can
 * tell such text from a synthetic probe (uniformly random ids spread over the whole vocabulary, real text keeps to
 * a few thousand common tokens) and size its working memory from what it sees, or be cheap at one length only.
 * So the measurement runs:
 *   text              the package's English text (dram/text.ts) tokenized by the model's tokenizer, the kit's
 *                     length, from a paragraph drawn at random;
 *   random-ids        uniformly random ids, the kit's length;
 *   repeated-id       one random id repeated, the kit's length;
 *   text-other-length the text again from another random paragraph, at a length drawn from [N/2, N): a graph
 *                     cheap at exactly the kit's length is measured where it is not.
 */
import { randomInt } from 'node:crypto';
import type { TextTokenizer } from '../../model/tokenizer.js';
import type { ProbeInput } from './probe-protocol.js';
import { dramTextIds, dramTextParagraphs } from './text.js';

export const DRAM_PROBE_KINDS = ['text', 'random-ids', 'repeated-id', 'text-other-length'] as const;
export type DramProbeKind = (typeof DRAM_PROBE_KINDS)[number];

export interface PlannedProbe {
  readonly kind: DramProbeKind;
  /** What was fed, for people: "2,000 tokens of the text from paragraph 17". */
  readonly description: string;
  /** The text's first paragraph for the text probes; null for the others. */
  readonly firstParagraph: number | null;
  readonly input: ProbeInput;
}

/** The probes for an input of `tokens` tokens (text-other-length only when there is a shorter length to draw). */
export function planProbes(tokenizer: TextTokenizer, tokens: number): PlannedProbe[] {
  const paragraphs = dramTextParagraphs().length;
  const textProbe = (kind: DramProbeKind, length: number): PlannedProbe => {
    const firstParagraph = randomInt(paragraphs);
    return {
      kind,
      firstParagraph,
      description: `${length.toLocaleString('en-US')} tokens of the text from paragraph ${firstParagraph}`,
      input: { kind: 'ids', ids: dramTextIds(tokenizer, length + 1, firstParagraph) },
    };
  };
  const count = tokens.toLocaleString('en-US');
  const probes: PlannedProbe[] = [
    textProbe('text', tokens),
    { kind: 'random-ids', firstParagraph: null, description: `${count} uniformly random ids`, input: { kind: 'random', tokens } },
    { kind: 'repeated-id', firstParagraph: null, description: `one random id repeated ${count} times`, input: { kind: 'repeated', tokens } },
  ];
  if (tokens >= 2) probes.push(textProbe('text-other-length', randomInt(Math.ceil(tokens / 2), tokens)));
  return probes;
}
