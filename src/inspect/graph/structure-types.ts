/**
 * The shapes graph/structure.ts finds in a decoder's graph: its layers, their projections and the roles those
 * play. A leaf, so the files that find the structure (graph-block-roles, graph-head-dim, graph-structure) and
 * those that read it (tensor-roles, architecture, lineage) share the types without importing one another.
 */
export type ProjectionRole = 'q' | 'k' | 'v' | 'qkv' | 'o' | 'up' | 'gate' | 'down';

export interface GraphProjection {
  readonly node: number;
  readonly weight: string;
  /** Weight stored [out, in] as the graph reads it. */
  readonly outFirst: boolean;
  readonly dataInput: string;
  readonly output: string;
  readonly bias: string | null;
}

export interface GraphLayer {
  readonly projections: ReadonlyMap<ProjectionRole, GraphProjection>;
  readonly norms: readonly string[];
  /** Names of the layer's weights and of the nodes reading them: module paths hint at layer numbers. */
  readonly names: readonly string[];
}

export interface GraphStructure {
  readonly tokenEmbedding: string;
  readonly auxEmbeddings: readonly string[];
  readonly layers: readonly GraphLayer[];
  readonly finalNorms: readonly string[];
  readonly head: GraphProjection | null;
  readonly parameters: ReadonlySet<string>;
  /** Initializers no graph output depends on. */
  readonly unused: readonly string[];
  /** From the query's split into heads (graph-head-dim), when the graph shows it. */
  readonly headDim: number | null;
}
