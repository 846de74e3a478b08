/**
 * Which node owns each subgraph (If branches, Loop and Scan bodies). A subgraph reads outer values by name and hands
 * its results out only through its owner's outputs, so data flow that enters a subgraph leaves it there. The reader
 * labels a subgraph `parent/owner.attribute` (owner: the node's name, else its op type; parent: the label of the
 * graph the owner is in, '' for the main graph); model-local functions are labelled `function:…` and are reached
 * through the nodes that call them instead.
 */
import type { NativeNodeInfo } from '../../native/binding.js';
import type { ModelGraph } from './model-graph.js';

const FUNCTION_LABEL = 'function:';

export type SubgraphOwners = (label: string) => readonly NativeNodeInfo[];

/**
 * The nodes that can own the subgraph labelled `label`, and the owners of the graphs those are in, out to the main
 * graph. Two unnamed owners of one op type in one graph share a label; both are returned, the strict reading.
 */
export function subgraphOwners(graph: ModelGraph): SubgraphOwners {
  const byPrefix = new Map<string, NativeNodeInfo[]>();
  for (const node of graph.info.nodes) {
    if (node.graph.startsWith(FUNCTION_LABEL)) continue;
    const prefix = `${node.graph === '' ? '' : `${node.graph}/`}${node.name || node.opType}`;
    const owners = byPrefix.get(prefix) ?? [];
    owners.push(node);
    byPrefix.set(prefix, owners);
  }
  const cache = new Map<string, readonly NativeNodeInfo[]>();
  const ownersOf = (label: string): readonly NativeNodeInfo[] => {
    const known = cache.get(label);
    if (known !== undefined) return known;
    const attributeAt = label.lastIndexOf('.');
    if (label === '' || label.startsWith(FUNCTION_LABEL) || attributeAt < 0) return [];
    cache.set(label, []); // a label cannot own itself; guards a malformed cycle
    const direct = byPrefix.get(label.slice(0, attributeAt)) ?? [];
    const owners = [...direct, ...direct.flatMap((owner) => ownersOf(owner.graph))];
    cache.set(label, owners);
    return owners;
  };
  return ownersOf;
}
