/**
 * Quantization by data flow: follows the values of every stored integer tensor forward through the graph, slot
 * by slot, to find the ones that become a layer's weights however they are disguised on the way (stored 1-D
 * and reshaped, packed four to an int32 and unpacked with bit ops, scaled by arithmetic). Float tensors are
 * followed too, from the op that makes integer codes of them (Floor, Mod, bit ops, BitCast, a Cast to an
 * integer type) on: integers packed into floats. Dtypes and ranks of the stored tensors prove nothing: what the
 * graph does with their values does.
 */
import type { NativeNodeInfo } from '../../native/binding.js';
import { isCodeStorage } from '../graph/dtypes.js';
import type { ModelGraph, ModelTensor } from '../graph/model-graph.js';
import { isLookupIndex, isLookupOp, isStandardDomain, makesIntegerCodes, outputIsFloat, slotRole } from './slots.js';
import { stepOf, type PathStep } from '../graph/path-step.js';
import type { SubgraphOwners } from '../graph/subgraph-owners.js';

/**
 * Traced integer tensors hold at least this many elements. Smaller ones are scalars and short vectors (offsets
 * such as `ids - 1`, per-tensor zero points, shapes, axes): none can hold a weight matrix worth quantizing,
 * and leaving them out keeps position arithmetic from being traced at all.
 */
export const MIN_SOURCE_ELEMENTS = 16;

export type { PathStep } from '../graph/path-step.js';

export interface WeightUse {
  /** The node that reads the values as a weight, and the slot. */
  readonly reader: PathStep;
  /** Every node from the tensor to the reader; for an integer lookup table, on to the node that made it float. */
  readonly path: readonly PathStep[];
  /** The values entering the weight slot depend on no graph input: stored weights, not activations. */
  readonly constant: boolean;
}

export interface IntegerTrace {
  readonly tensor: ModelTensor;
  /** Weight slots its values reach, nearest first. */
  readonly uses: readonly WeightUse[];
  /** Its values enter float computation (a weight slot or a conversion to float), not only shapes, indices, conditions. */
  readonly carriesValues: boolean;
}

interface Hop {
  readonly node: NativeNodeInfo;
  readonly inputIndex: number;
  readonly previous: Hop | null;
}

interface State {
  readonly value: string;
  readonly isFloat: boolean;
  /** The lookup (Gather of an integer table) the values went through, until they turn float. */
  readonly lookup: Hop | null;
  /** The values are integer codes: stored as integers, or made so on the way (makesIntegerCodes). */
  readonly coded: boolean;
  /**
   * The codes were made of a value that already depended on the input: rounded activations, or stored codes made to
   * look input-dependent before they were unpacked. They count toward the storage share, never as a weight use.
   */
  readonly codedFromInput: boolean;
  readonly hop: Hop | null;
}

// Enough to show where a tensor goes; a tensor read by more weight slots than this is reported by the first ones.
const MAX_USES_PER_TENSOR = 16;

/**
 * Stored tensors big enough to hold weights, each with where its values go: integer tensors, and float tensors
 * whose values become integer codes on the way (integers packed into floats), which count only from there on.
 * `dependent` is inputDependentValues(graph, ownersOf), which the caller shares with the storage share.
 */
export function traceIntegerTensors(graph: ModelGraph, dependent: ReadonlySet<string>, ownersOf: SubgraphOwners): IntegerTrace[] {
  return graph.tensors
    .filter((tensor) => (isCodeStorage(tensor.category) || tensor.category === 'float') && tensor.elementCount >= MIN_SOURCE_ELEMENTS)
    .map((tensor) => traceOne(graph, tensor, dependent, ownersOf))
    .filter((trace) => isCodeStorage(trace.tensor.category) || trace.carriesValues);
}

function traceOne(graph: ModelGraph, tensor: ModelTensor, dependent: ReadonlySet<string>, ownersOf: SubgraphOwners): IntegerTrace {
  const uses: WeightUse[] = [];
  let carriesValues = false;
  // fp8 / fp6 / fp4 storage is float already; the integer types become float only through a conversion.
  const queue: State[] = [
    {
      value: tensor.name,
      isFloat: tensor.category === 'float' || tensor.dtype.startsWith('float'),
      lookup: null,
      coded: isCodeStorage(tensor.category),
      codedFromInput: false,
      hop: null,
    },
  ];
  const seen = new Set<string>();
  const record = (reader: Hop, end: Hop, codedFromInput: boolean): void => {
    carriesValues = true;
    const input = reader.node.inputs[reader.inputIndex] ?? '';
    if (uses.length < MAX_USES_PER_TENSOR)
      uses.push({ reader: stepOf(reader.node, reader.inputIndex), path: pathOf(end), constant: !dependent.has(input) && !codedFromInput });
  };
  // Breadth first, so the path kept for each reader is a shortest one.
  for (let next = 0; next < queue.length; next++) {
    const state = queue[next]!;
    for (const { node, inputIndex } of graph.consumers.get(state.value) ?? []) {
      const hop: Hop = { node, inputIndex, previous: state.hop };
      const role = slotRole(node, inputIndex);
      // Codes that index a table choose the values it hands on (a lookup table, a palette): they carry values.
      if (role === 'control' && state.coded && isLookupIndex(node, inputIndex)) carriesValues = true;
      if (role === 'control' || role === 'ends') continue;
      // Float values that were never integer codes are what a float model's weights are.
      if (role === 'weight' && !state.coded) continue;
      const readsIntegerTable = role === 'weight' && isLookupOp(node) && !state.isFloat;
      if (role === 'weight' && !readsIntegerTable) {
        // Rows of an integer table handed to a weight reader (Gather → DequantizeLinear): the table is the weight.
        record(state.lookup ?? hop, hop, state.codedFromInput);
        continue;
      }
      // A value slot, or an integer table being indexed: the values go on to the outputs.
      const lookup = readsIntegerTable ? hop : state.lookup;
      const isFloat = outputIsFloat(node, state.isFloat);
      const makesCodes = !state.coded && makesIntegerCodes(node);
      const coded = state.coded || makesCodes;
      const codedFromInput = state.codedFromInput || (makesCodes && dependent.has(state.value));
      if (isFloat && !state.isFloat) {
        carriesValues = true;
        if (lookup !== null) {
          // Rows of an integer table turned into floats: the table was an embedding, not an id map.
          record(lookup, hop, state.codedFromInput);
          continue;
        }
      }
      // Values that enter a subgraph come out of the node that owns it (If, Loop, Scan): follow them there too,
      // whichever of the subgraph's values is its result.
      const exits = ownersOf(node.graph).map((owner): [NativeNodeInfo, Hop] => [owner, { node: owner, inputIndex: -1, previous: hop }]);
      for (const [producer, via] of [[node, hop] as [NativeNodeInfo, Hop], ...exits]) {
        for (const output of producer.outputs) {
          const key = `${output}|${isFloat ? 1 : 0}|${lookup === null ? 0 : 1}|${coded ? 1 : 0}|${codedFromInput ? 1 : 0}`;
          if (output === '' || seen.has(key)) continue;
          seen.add(key);
          queue.push({ value: output, isFloat, lookup, coded, codedFromInput, hop: via });
        }
      }
    }
  }
  return { tensor, uses, carriesValues };
}

/**
 * Values that depend on a graph input through any slot. A weight is computed from stored tensors alone;
 * positions sliced to the input's length, masks and activations are not weights even when integers feed them.
 * An If's condition only picks a branch: its outputs depend on the input when a branch computes from it, which
 * reaches them through the subgraph's owner, as any value computed inside a subgraph does.
 */
export function inputDependentValues(graph: ModelGraph, ownersOf: SubgraphOwners): Set<string> {
  const dependent = new Set(graph.info.inputs.map((input) => input.name).filter((name) => !graph.tensorByName.has(name)));
  // A Loop or Scan body's own inputs (iteration, carried state, scanned slices) are made by no node and stored
  // nowhere: what the body computes from them changes with the input like anything else it computes.
  const produced = new Set(graph.info.nodes.flatMap((node) => node.outputs));
  for (const node of graph.info.nodes) {
    if (node.graph === '' || node.graph.startsWith('function:')) continue;
    for (const input of node.inputs) if (input !== '' && !produced.has(input) && !graph.tensorByName.has(input)) dependent.add(input);
  }
  const queue = [...dependent];
  const visited = new Set<NativeNodeInfo>();
  for (let next = 0; next < queue.length; next++) {
    for (const { node, inputIndex } of graph.consumers.get(queue[next]!) ?? []) {
      if (node.opType === 'If' && isStandardDomain(node.domain) && inputIndex === 0) continue;
      for (const producer of [node, ...ownersOf(node.graph)]) {
        if (visited.has(producer)) continue;
        visited.add(producer);
        for (const output of producer.outputs) {
          if (output === '' || dependent.has(output)) continue;
          dependent.add(output);
          queue.push(output);
        }
      }
    }
  }
  return dependent;
}

function pathOf(end: Hop): PathStep[] {
  const steps: PathStep[] = [];
  for (let hop: Hop | null = end; hop !== null; hop = hop.previous) steps.push(stepOf(hop.node, hop.inputIndex));
  return steps.reverse();
}
