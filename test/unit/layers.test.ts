/**
 * The import graph of src/ by folder (scripts/import-graph.mjs: dependency-cruiser, type-only
 * imports included) has no cycle, and every import points down the layer table (and into
 * the economy only through src/economy/index.ts). Inside
 * every folder, at every depth, the graph of its direct children has no cycle either.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

interface Edge {
  from: string;
  to: string;
  imports: number;
  typeOnly: number;
}

interface ImportGraph {
  layers: Array<{ nodes: string[]; role: string }>;
  edges: Edge[];
  folders: Array<{ parent: string; edges: Edge[] }>;
  violations: Array<{ rule: string; from: string; to: string }>;
}

const root = join(__dirname, '..', '..');

// dependency-cruiser is an ES module only; Jest runs CommonJS, so the graph is drawn in a child process.
const graph = JSON.parse(
  execFileSync(process.execPath, [join(root, 'scripts', 'import-graph.mjs'), '--json'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
  }),
) as ImportGraph;

/** The folder cycles of the graph: its strongly connected components of more than one node (Tarjan). */
function cycles(edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of new Set(edges.flatMap((edge) => [edge.from, edge.to]))) if (!index.has(node)) visit(node);
  return found;
}

describe('folder layers of src/', () => {
  it('draws the folder graph with type-only imports counted', () => {
    expect(graph.edges.length).toBeGreaterThan(20);
    // A type-only import is an edge like any other (tsPreCompilationDeps).
    expect(graph.edges.some((edge) => edge.typeOnly > 0 && edge.typeOnly === edge.imports)).toBe(true);
  });

  it('has no cycle between folders', () => {
    expect(cycles(graph.edges)).toEqual([]);
  });

  it('has no cycle among the children of any folder, at any depth', () => {
    const parents = graph.folders.map((folder) => folder.parent);
    // The graph is drawn inside nested folders too, not only under src/.
    expect(parents).toEqual(expect.arrayContaining(['src', 'src/domains', 'src/economy']));
    expect(
      graph.folders
        .find((folder) => folder.parent === 'src/domains')
        ?.edges.some((edge) => edge.from === 'factories' && edge.to === 'shared'),
    ).toBe(true);
    const found = graph.folders.flatMap((folder) =>
      cycles(folder.edges).map((cycle) => `${folder.parent}: ${cycle.join(', ')}`),
    );
    expect(found).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself)', () => {
    const edge = (from: string, to: string): Edge => ({ from, to, imports: 1, typeOnly: 0 });
    expect(cycles([edge('graph', 'domains'), edge('domains', 'field-rules'), edge('domains', 'graph')])).toEqual([
      ['domains', 'graph'],
    ]);
  });

  it('points every import down the layer table (dependency-cruiser rules)', () => {
    expect(graph.violations).toEqual([]);
    const layerOf = new Map(graph.layers.flatMap((layer, index) => layer.nodes.map((node) => [node, index] as const)));
    const upward = graph.edges.filter((edge) => !((layerOf.get(edge.from) ?? -1) < (layerOf.get(edge.to) ?? -1)));
    expect(upward).toEqual([]);
  });

  it('keeps the documented directions: web → pipeline → graph → domains → economy → upstream', () => {
    const layerOf = new Map(graph.layers.flatMap((layer, index) => layer.nodes.map((node) => [node, index] as const)));
    const order = [
      'web',
      'runtime',
      'context',
      'pipeline',
      'graph',
      'domains',
      'field-rules',
      'economy',
      'upstream',
      'errors',
    ].map((node) => layerOf.get(node));
    expect(order.every((layer) => layer !== undefined)).toBe(true);
    expect([...order].sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(order);
  });
});
