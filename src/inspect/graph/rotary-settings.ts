/**
 * The rotary position settings a Hugging Face config.json states, as transformers reads them: rope_theta (top level,
 * or in transformers 5's rope_parameters), the rotary share of each head (partial_rotary_factor, Phi's default 0.5)
 * and the scaling type. Only what a stored cos/sin cache can be rebuilt from is accepted: the default rotation and
 * linear scaling (positions divided by the factor). The other types (dynamic, yarn, llama3, longrope …) change the
 * frequencies with the input length, which a rebuilt table would have to guess: they are refused, naming the type.
 */
import { MlrbError } from '../../errors.js';
import type { HfConfig } from '../../model/hf-config.js';

/** transformers' rope_theta when a config leaves it out (LlamaConfig, PhiConfig, MistralConfig …). */
export const DEFAULT_ROPE_THETA = 10_000;
const SUPPORTED_TYPES = new Set(['default', 'linear']);

export interface RotarySettings {
  readonly theta: number;
  /** head_dim × partial_rotary_factor: the channels of each head that rotate. */
  readonly rotaryDim: number;
  /** Positions are multiplied by this before the rotation: 1, or 1 / factor for linear scaling. */
  readonly positionScale: number;
  readonly ropeType: string;
  /** Where each figure came from, for the report. */
  readonly from: readonly string[];
}

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === 'object' && value !== null && !Array.isArray(value);

function positiveNumber(value: unknown, field: string, source: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new MlrbError('BAD_MODEL', `${source}: ${field} must be a positive number, got ${JSON.stringify(value)?.slice(0, 40)}`, { file: source, field });
  }
  return value;
}

/** BAD_MODEL naming the field when the config cannot say how to rebuild a rotary cache. */
export function rotarySettingsOf(json: Readonly<Record<string, unknown>>, config: HfConfig): RotarySettings {
  const source = config.source;
  const parameters = isRecord(json.rope_parameters) ? json.rope_parameters : null;
  const scaling = isRecord(json.rope_scaling) ? json.rope_scaling : parameters;
  const from: string[] = [];
  const statedTheta = json.rope_theta ?? parameters?.rope_theta;
  const theta = statedTheta === undefined || statedTheta === null ? DEFAULT_ROPE_THETA : positiveNumber(statedTheta, 'rope_theta', source);
  from.push(statedTheta === undefined || statedTheta === null ? `rope_theta ${theta} (not stated: transformers' default)` : `rope_theta ${theta}`);
  const ropeType = String(scaling?.rope_type ?? scaling?.type ?? 'default');
  if (!SUPPORTED_TYPES.has(ropeType)) {
    throw new MlrbError(
      'BAD_MODEL',
      `${source}: rope type '${ropeType}' scales frequencies with the input length; a stored cache of it cannot be rebuilt (only default and linear)`,
      {
        file: source,
        field: 'rope_scaling',
      },
    );
  }
  const factor = ropeType === 'linear' ? positiveNumber(scaling?.factor, 'rope_scaling.factor', source) : 1;
  if (ropeType === 'linear') from.push(`linear scaling, factor ${factor}`);
  if (config.headDim === null)
    throw new MlrbError('BAD_MODEL', `${source}: head_dim cannot be read (hidden_size / num_attention_heads)`, { file: source, field: 'head_dim' });
  const statedPartial = config.partialRotaryFactor ?? parameters?.partial_rotary_factor;
  const partial = statedPartial === undefined || statedPartial === null ? 1 : positiveNumber(statedPartial, 'partial_rotary_factor', source);
  const rotaryDim = Math.floor(config.headDim * partial);
  from.push(`rotary dim ${rotaryDim} = head_dim ${config.headDim} × partial_rotary_factor ${partial}`);
  if (rotaryDim < 2 || rotaryDim % 2 !== 0) {
    throw new MlrbError('BAD_MODEL', `${source}: a rotary dim of ${rotaryDim} (head_dim × partial_rotary_factor) is not an even number of at least 2`, {
      file: source,
      field: 'partial_rotary_factor',
    });
  }
  return { theta, rotaryDim, positionScale: 1 / factor, ropeType, from };
}
