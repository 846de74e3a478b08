/**
 * Which graph inputs each value of the main graph is computed from: their values, or only their shapes (read
 * through Shape or Size, as a sequence length or a Range of positions is). One pass in graph order; initializers
 * and Constant nodes depend on nothing. The roles of tables follow from it: a table read at indices computed from
 * the token ids' values is a token table, one read at positions (position_ids, the attention mask, or the inputs'
 * shapes alone) a position table (graph-position-tables).
 */
import type { InputRole } from '../native/binding.js';
import { SHAPE_OPS, type GraphFlow } from './graph-flow.js';

/** The graph input the session feeds token ids to (native/ort/graph_signature.cc names inputs by role). */
export const TOKEN_IDS_INPUT = 'input_ids' satisfies InputRole;
export const TOKEN_TYPE_IDS_INPUT = 'token_type_ids' satisfies InputRole;
/** Inputs whose values are positions or say which positions are real. */
export const POSITION_INPUTS: ReadonlySet<string> = new Set(['position_ids', 'attention_mask'] satisfies InputRole[]);

export interface InputDependence {
  /** Graph inputs whose values reach the value. */
  readonly values: ReadonlySet<string>;
  /** Graph inputs of which only the shape reaches it. */
  readonly shapes: ReadonlySet<string>;
}

const NONE: InputDependence = { values: new Set(), shapes: new Set() };

export function inputDependence(flow: GraphFlow): (value: string) => InputDependence {
  const found = new Map<string, InputDependence>(flow.graph.info.inputs.map((input) => [input.name, { values: new Set([input.name]), shapes: new Set() }]));
  for (const node of flow.nodes) {
    const values = new Set<string>();
    const shapes = new Set<string>();
    for (const input of node.inputs) {
      const dependence = found.get(input) ?? NONE;
      // A shape read carries the input's shape, never its values.
      for (const name of dependence.values) (SHAPE_OPS.has(node.opType) ? shapes : values).add(name);
      for (const name of dependence.shapes) shapes.add(name);
    }
    for (const output of node.outputs) if (output !== '') found.set(output, { values, shapes });
  }
  return (value) => found.get(value) ?? NONE;
}

/** What chooses the rows a table read returns. */
export type ReadKey = 'tokens' | 'token-types' | 'positions' | 'constant' | 'other';

/** The key of a read whose rows are chosen by `values` (a Gather's indices, a Slice's bounds). */
export function readKey(dependenceOf: (value: string) => InputDependence, values: readonly string[]): ReadKey {
  const dependences = values.filter((value) => value !== '').map(dependenceOf);
  const reads = (name: string): boolean => dependences.some((dependence) => dependence.values.has(name));
  if (reads(TOKEN_IDS_INPUT)) return 'tokens';
  if (reads(TOKEN_TYPE_IDS_INPUT)) return 'token-types';
  const valueInputs = dependences.flatMap((dependence) => [...dependence.values]);
  if (valueInputs.some((name) => !POSITION_INPUTS.has(name))) return 'other';
  if (valueInputs.length > 0 || dependences.some((dependence) => dependence.shapes.size > 0)) return 'positions';
  return 'constant';
}
