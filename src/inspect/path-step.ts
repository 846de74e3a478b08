/** One node on a data-flow path that a check reports (from a stored tensor to the node that reads it as a weight). */
import type { NativeNodeInfo } from '../native/binding.js';

export interface PathStep {
  readonly opType: string;
  /** The node's name, or its first output where it has none. */
  readonly node: string;
  readonly domain: string;
  /** The slot the values entered the node by (-1: they leave a subgraph through the node that owns it). */
  readonly inputIndex: number;
}

export function stepOf(node: NativeNodeInfo, inputIndex: number): PathStep {
  return { opType: node.opType, node: node.name || (node.outputs[0] ?? ''), domain: node.domain, inputIndex };
}
