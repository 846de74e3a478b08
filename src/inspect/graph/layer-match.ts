/**
 * Which base layer each pruned layer is, by its weights. Exporters renumber a ModuleList once a layer is
 * deleted (layers.0, layers.1 where the base had 0, 2), so names cannot tell a removed middle layer from a
 * removed last one. Norm weights can: head and channel pruning leave them whole, and trained norms differ
 * from layer to layer. A match needs every pruned layer to equal exactly one base layer, in order, and
 * every base fingerprint to be distinct; anything less leaves the matching to names.
 */
import type { LayerShape, ModelShape } from './architecture.js';
import { hasReadableValues, readTensorValues } from './tensor-values.js';
import type { ModelGraph } from './model-graph.js';

function fingerprint(graph: ModelGraph, shape: ModelShape, layer: LayerShape): string | null {
  const norms = layer.tensors.filter((name) => shape.roles.get(name)?.role === 'norm').sort();
  const tensors = norms.map((name) => graph.tensorByName.get(name)!);
  if (tensors.length === 0 || !tensors.every(hasReadableValues)) return null;
  return tensors.map((tensor) => Array.from(readTensorValues(tensor)).join(',')).join('|');
}

/** Pruned layer index → base layer index, or null when weights cannot decide. */
export function matchLayersByWeights(pruned: ModelGraph, prunedShape: ModelShape, base: ModelGraph, baseShape: ModelShape): Map<number, number> | null {
  const baseKeys = baseShape.layers.map((layer) => fingerprint(base, baseShape, layer));
  if (baseKeys.some((key) => key === null) || new Set(baseKeys).size !== baseKeys.length) return null;
  const mapping = new Map<number, number>();
  let previous = -1;
  for (const layer of prunedShape.layers) {
    const key = fingerprint(pruned, prunedShape, layer);
    const position = key === null ? -1 : baseKeys.indexOf(key);
    if (position <= previous) return null;
    mapping.set(layer.index, baseShape.layers[position]!.index);
    previous = position;
  }
  return mapping;
}

/** The shape with its layers (and their tensors' roles) numbered as the base's. */
export function renumberLayers(shape: ModelShape, mapping: ReadonlyMap<number, number>): ModelShape {
  const roles = new Map(shape.roles);
  for (const layer of shape.layers) {
    for (const name of layer.tensors) {
      const role = roles.get(name);
      if (role) roles.set(name, { ...role, layer: mapping.get(layer.index) ?? layer.index });
    }
  }
  return { ...shape, roles, layers: shape.layers.map((layer) => ({ ...layer, index: mapping.get(layer.index) ?? layer.index })) };
}
