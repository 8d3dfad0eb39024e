// The import graph of src/ by folder, drawn by dependency-cruiser, and the layer table it
// must follow. `node scripts/import-graph.mjs` prints the folder graph and any violation;
// `--json` prints them as JSON (what test/unit/layers.test.ts reads). Exits 1 on a violation.
//
// A node is a folder directly under src/ (src/domains/…) or a file directly in src/
// (src/context.ts is the node `context`). Type-only imports count (tsPreCompilationDeps).
// The same graph is drawn inside every folder too (`folders`): there the nodes are the
// folder's direct children, and an import between two files counts as an edge between
// the two children of their deepest common folder that hold them (no cycle at any depth).
import { pathToFileURL } from 'node:url';
import { cruise } from 'dependency-cruiser';

/**
 * The layers, top to bottom. A node may import nodes of the layers below its own, never
 * a node of its own layer or of a layer above: so no two nodes can import each other,
 * directly or around a loop. CONTRIBUTING.md (Layers) shows the same table.
 */
export const LAYERS = [
  { nodes: ['main', 'demo'], role: 'the programs: npm start and npm run demo (wiring only)' },
  { nodes: ['cli'], role: "statev-gateway's command line: flags, --help and --print-config from the settings table" },
  {
    nodes: ['server', 'simulator'],
    role: 'startGateway (node:http, drain); the REST API simulator, a program of its own',
  },
  {
    nodes: ['subscriptions', 'admin'],
    role: 'graphql-ws and graphql-sse transports, the poll hub, its limits and the Redis relay; the administration graph and the console sign-in',
  },
  { nodes: ['web'], role: 'HTTP routes: GraphQL over HTTP, CORS, playground, public-site mode, static files' },
  {
    nodes: ['runtime'],
    role: 'createGatewayRuntime: the Apollo server, its plugins, the economy and the client, wired',
  },
  {
    nodes: ['alerts'],
    role: "alerts: rules on the subscriptions' pollers (conditions, state, events), delivery from a restart-proof outbox to Discord or a signed webhook",
  },
  { nodes: ['observability'], role: 'logger, metrics, the per-operation plugins' },
  { nodes: ['context'], role: "one operation's context, built from a request" },
  { nodes: ['pipeline'], role: 'the ordered request checks every transport runs' },
  {
    nodes: ['graph'],
    role: "the schema (built from the domains' registry) and the checks reading field rules from it",
  },
  {
    nodes: ['domains'],
    role: 'the GraphQL types, resolvers, loaders, mappers and subscribable resources, by domain; the feeds they poll (feeds/)',
  },
  {
    nodes: ['field-rules', 'vault'],
    role: 'what a field declares (its cost, bounds and fan-out) and the walks that sum them over a document; the vault of keys and access tokens',
  },
  { nodes: ['economy'], role: 'cache, coalescing, budget, queue, invalidation, shared state' },
  {
    nodes: ['http', 'config'],
    role: 'RFC 7240 Prefer parsing and its plugin; every setting: GatewayConfig and its defaults, the SETTINGS table, the readers of values (the only reader of process.env)',
  },
  { nodes: ['upstream'], role: 'the endpoint catalog and the undici client (the only importer of undici)' },
  {
    nodes: ['errors', 'process-lifecycle', 'heap-growth', 'project-root'],
    role: 'leaves: GatewayError; signals; heap flags; the project folder',
  },
];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
const nodePath = (nodes) => `^src/(${nodes.map(escape).join('|')})(/|\\.ts$)`;

/** The node of a path under src/, or null outside src/. */
export function nodeOf(path) {
  const match = /^src\/([^/]+?)(?:\/|\.d\.ts$|\.ts$)/.exec(path);
  return match ? match[1] : null;
}

/**
 * Where an import sits in the folder tree: the deepest folder holding both files (`src`,
 * `src/domains`, …) and its two direct children holding each side (a folder's name, or a
 * file's name without `.ts`), or null when one side is outside src/ or both are one file.
 */
export function siblingsOf(fromPath, toPath) {
  const from = fromPath.split('/');
  const to = toPath.split('/');
  if (from[0] !== 'src' || to[0] !== 'src') return null;
  let depth = 1;
  while (depth < from.length - 1 && depth < to.length - 1 && from[depth] === to[depth]) depth += 1;
  const name = (segment) => segment.replace(/(\.d)?\.ts$/, '');
  const fromChild = name(from[depth]);
  const toChild = name(to[depth]);
  if (fromChild === toChild) return null;
  return { parent: from.slice(0, depth).join('/'), from: fromChild, to: toChild };
}

/** dependency-cruiser's forbidden rules for {@link LAYERS}: one per node, plus one for nodes missing from the table. */
export function layerRules() {
  const known = LAYERS.flatMap((layer) => layer.nodes);
  const rules = [
    {
      name: 'node-not-in-layer-table',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/', pathNot: nodePath(known) },
    },
  ];
  // Code outside the economy reaches it through src/economy/index.ts only (its public surface).
  rules.push({
    name: 'economy-through-index',
    severity: 'error',
    from: { path: '^src/', pathNot: '^src/economy/' },
    to: { path: '^src/economy/', pathNot: '^src/economy/index\\.ts$' },
  });
  LAYERS.forEach((layer, index) => {
    const below = LAYERS.slice(index + 1).flatMap((each) => each.nodes);
    for (const node of layer.nodes) {
      rules.push({
        name: `layer-${node}`,
        comment: `${node} may import only the layers below it: ${below.join(', ') || 'nothing'}`,
        severity: 'error',
        from: { path: nodePath([node]) },
        to: { path: '^src/', pathNot: nodePath([node, ...below]) },
      });
    }
  });
  return rules;
}

/** Cruises src/ and returns the folder edges (with counts) and dependency-cruiser's layer violations. */
export async function importGraph() {
  const result = await cruise(
    ['src'],
    {
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      exclude: { path: 'node_modules' },
      validate: true,
      ruleSet: { forbidden: layerRules() },
    },
    undefined,
    { tsConfig: { fileName: 'tsconfig.json' } },
  );
  const { modules, summary } = result.output;
  const edges = new Map();
  const nested = new Map();
  const count = (map, key, from, to, typeOnly) => {
    const edge = map.get(key) ?? { from, to, imports: 0, typeOnly: 0 };
    edge.imports += 1;
    if (typeOnly) edge.typeOnly += 1;
    map.set(key, edge);
  };
  for (const module of modules) {
    for (const dependency of module.dependencies) {
      const typeOnly = dependency.dependencyTypes.includes('type-only');
      const siblings = siblingsOf(module.source, dependency.resolved);
      if (siblings) {
        if (!nested.has(siblings.parent)) nested.set(siblings.parent, new Map());
        count(nested.get(siblings.parent), `${siblings.from} -> ${siblings.to}`, siblings.from, siblings.to, typeOnly);
      }
      const from = nodeOf(module.source);
      const to = nodeOf(dependency.resolved);
      if (!from || !to || to === from) continue;
      count(edges, `${from} -> ${to}`, from, to, typeOnly);
    }
  }
  const sorted = (map) => [...map.values()].sort((a, b) => (a.from + a.to).localeCompare(b.from + b.to));
  const folders = [...nested.entries()]
    .map(([parent, map]) => ({ parent, edges: sorted(map) }))
    .sort((a, b) => a.parent.localeCompare(b.parent));
  const violations = summary.violations.map((violation) => ({
    rule: violation.rule.name,
    from: violation.from,
    to: violation.to,
  }));
  return { modules: modules.length, edges: sorted(edges), folders, violations };
}

/** A folder's sibling edges as `[child, children it imports]`, the child with the longest chain below it first. */
function siblingLines(edges) {
  const next = new Map();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to].sort());
  const height = new Map();
  const heightOf = (node) => {
    if (!height.has(node)) height.set(node, 1 + Math.max(0, ...(next.get(node) ?? []).map(heightOf)));
    return height.get(node);
  };
  return [...next.entries()].sort(([a], [b]) => heightOf(b) - heightOf(a) || a.localeCompare(b));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const graph = await importGraph();
  if (process.argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ layers: LAYERS, ...graph })}\n`);
  } else {
    const line = (edge) =>
      `${edge.from} -> ${edge.to} (${edge.imports} imports${edge.typeOnly ? `, ${edge.typeOnly} type-only` : ''})`;
    if (process.argv.includes('--folders')) {
      // Inside each folder: one line per child that imports a sibling, top (most below it) first.
      const only = process.argv.slice(process.argv.indexOf('--folders') + 1).filter((arg) => !arg.startsWith('--'));
      for (const folder of graph.folders) {
        if (folder.parent === 'src' || (only.length > 0 && !only.includes(folder.parent))) continue;
        console.log(`${folder.parent}/`);
        for (const [node, targets] of siblingLines(folder.edges)) console.log(`  ${node} → ${targets.join(', ')}`);
      }
    } else {
      for (const edge of graph.edges) console.log(line(edge));
    }
    for (const violation of graph.violations)
      console.log(`VIOLATION ${violation.rule}: ${violation.from} -> ${violation.to}`);
  }
  process.exitCode = graph.violations.length > 0 ? 1 : 0;
}
