/**
 * Reads a V8 `.cpuprofile` (from `node --cpu-prof`) and tells where the busy time went:
 * self time per function, inclusive time per function, and time per package or
 * project folder. Idle, GC and startup are reported apart from the busy time.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  startTime: number;
  endTime: number;
}

/** One line of a ranking. */
export interface HotSpot {
  /** `function file:line` (node_modules shortened to the package path). */
  name: string;
  /** Share of the busy (non-idle) samples, percent. */
  percent: number;
}

/** The summary of one profile. */
export interface ProfileSummary {
  file: string;
  /** Sampled wall time, ms. */
  sampledMs: number;
  /** Share of samples where the process was idle, percent. */
  idlePercent: number;
  /** Hottest functions by self time (share of busy samples). */
  self: HotSpot[];
  /** Functions of this project (src/) by inclusive time. */
  ourCode: HotSpot[];
  /** Busy time per package (node_modules) or project folder, inclusive of nothing: self time summed. */
  byOrigin: HotSpot[];
}

function location(url: string): string {
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) return url.slice(modules + '/node_modules/'.length);
  const project = /\/(dist\/)?(src|bench)\//.exec(url);
  if (project) return url.slice(project.index + 1);
  return url === '' ? '(native)' : url.replace(/^file:\/\//, '');
}

function origin(url: string): string {
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + '/node_modules/'.length).split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1] ?? ''}` : (parts[0] ?? url);
  }
  const project = /\/(dist\/)?(src\/[^/]+)/.exec(url);
  if (project) return `(ours) ${project[2]}`;
  if (url.startsWith('node:')) return '(node core)';
  return url === '' ? '(native / V8)' : url;
}

function ours(url: string): boolean {
  return !url.includes('/node_modules/') && /\/(dist\/)?src\//.test(url);
}

function top(map: Map<string, number>, busy: number, n: number): HotSpot[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, samples]) => ({ name, percent: Math.round((samples / Math.max(1, busy)) * 1000) / 10 }));
}

/** Summarizes a `.cpuprofile` file. */
export function summarizeProfile(file: string, limit = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const hits = new Map<number, number>();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);

  const label = (node: ProfileNode): string =>
    `${node.callFrame.functionName || '(anonymous)'} ${location(node.callFrame.url)}${node.callFrame.url ? `:${node.callFrame.lineNumber + 1}` : ''}`;
  const self = new Map<string, number>();
  const inclusiveOurs = new Map<string, number>();
  const byOrigin = new Map<string, number>();
  let idle = 0;
  let busy = 0;
  for (const [id, count] of hits) {
    const node = byId.get(id);
    if (!node) continue;
    const name = node.callFrame.functionName;
    if (name === '(idle)') {
      idle += count;
      continue;
    }
    // Module loading at start-up is not the hot path.
    let startup = false;
    for (let cursor: number | undefined = id; cursor !== undefined; cursor = parent.get(cursor)) {
      const frame = byId.get(cursor)?.callFrame;
      if (frame?.url === 'node:internal/main/run_main_module' || frame?.functionName === 'Module._compile') {
        startup = true;
        break;
      }
    }
    if (startup) continue;
    busy += count;
    self.set(label(node), (self.get(label(node)) ?? 0) + count);
    const group =
      name === '(garbage collector)'
        ? '(garbage collector)'
        : name === '(program)'
          ? '(program)'
          : origin(node.callFrame.url);
    byOrigin.set(group, (byOrigin.get(group) ?? 0) + count);
    const seen = new Set<string>();
    for (let cursor: number | undefined = id; cursor !== undefined; cursor = parent.get(cursor)) {
      const frame = byId.get(cursor);
      if (!frame || !ours(frame.callFrame.url)) continue;
      const key = label(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusiveOurs.set(key, (inclusiveOurs.get(key) ?? 0) + count);
    }
  }
  const samples = profile.samples.length;
  return {
    file,
    sampledMs: Math.round((profile.endTime - profile.startTime) / 1000),
    idlePercent: Math.round((idle / Math.max(1, samples)) * 1000) / 10,
    self: top(self, busy, limit),
    ourCode: top(inclusiveOurs, busy, limit),
    byOrigin: top(byOrigin, busy, limit),
  };
}
