/**
 * What a benchmark scenario gets to work with: the flags, the simulator, the operations,
 * ports, processes (gateways with their settings, shared servers), the measurement
 * helpers and the place to record its result. See bench/README.md, "Adding a scenario".
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { projectRoot } from '../../src/project-root';
import type { BenchArgs } from './args';
import { gatewayOperations, simRequests, sleep, total } from './http';
import { assertPortFree, freePort, HOST, startService, stopService } from './processes';
import type { Service } from './processes';
import { summarizeProfile } from './profile';
import type { ProfileSummary } from './profile';

/**
 * Folder of the gateways' cache files (`CACHE_FILE`) during this run: each gateway process
 * gets a file of its own there, so persistence is on as by default but no scenario starts
 * with what an earlier one (or an earlier run) fetched. Removed when the run ends.
 */
export const CACHE_FILES = mkdtempSync(join(tmpdir(), 'statev-bench-cache-'));
process.once('exit', () => rmSync(CACHE_FILES, { recursive: true, force: true }));

/** The project folder. */
export const ROOT = projectRoot();
/** Where summaries, profiles and the floor's data go (git-ignored). */
export const RESULTS = join(ROOT, 'bench', 'results');

/**
 * The Node flags of `npm start` (package.json's `scripts.start`, `… && node <flags>
 * dist/src/main.js`), so the bench runs the gateway as its users do; e.g.
 * `--max-semi-space-size=8`.
 */
export function startNodeFlags(): string[] {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> })
    .scripts;
  const flags = /\bnode((?:\s+--\S+)*)\s+dist\/src\/main\.js/.exec(scripts?.['start'] ?? '')?.[1] ?? '';
  return flags.split(/\s+/).filter((flag) => flag.length > 0);
}
/** The demo's premium key (every scope), the key of the warm scenarios. */
export const PREMIUM_KEY = 'demo-premium-key';

/** A recorded result: `ok` says whether it succeeded; a result with `skipped` could not run here and is not a failure. */
export type ScenarioRecord = { readonly ok: boolean } | { readonly skipped: string };

/**
 * A server process several scenarios share (e.g. the gateway with its defaults): the
 * runner starts it on the first use and stops it after the last selected scenario
 * that lists it in {@link Scenario.uses}.
 */
export interface SharedServer {
  /** Name for messages. */
  readonly name: string;
  /** Starts it; `profile` asks for `--cpu-prof` (see {@link Bench.startGateway}). */
  start(bench: Bench, profile: boolean): Promise<Service>;
}

/** One benchmark scenario, as registered in bench/scenarios/index.ts. */
export interface Scenario {
  /** Name for `--only` and `--profile`, and the key of its result in the summary's `scenarios`. */
  readonly name: string;
  /** Shared servers it runs on (obtain them with {@link Bench.shared}). */
  readonly uses?: readonly SharedServer[];
  /** False when `--profile NAME` makes no sense (several server processes). Default true. */
  readonly profilable?: boolean;
  /** True when it runs only when `--only` (or `--profile`) names it, not in the default run. Default false. */
  readonly optIn?: boolean;
  /** Runs it and records its result(s) with {@link Bench.record}. */
  run(bench: Bench): Promise<void>;
}

/** How a scenario's own settings relate to `--gateway-env`. */
export interface GatewayEnvOptions {
  /** The scenario's settings win over `--gateway-env` (what the scenario measures depends on them). */
  pinned?: boolean;
  /** Variables the process must not get, whatever `--gateway-env` says (e.g. REDIS_URL of a no-Redis replica). */
  omit?: readonly string[];
  /** Run this process with `--cpu-prof` (default: when `--profile` names the running scenario). */
  profile?: boolean;
  /** Extra Node flags for this process only (e.g. `GC_ON_SIGNAL_FLAGS` of bench/lib/rss.ts for a memory scenario). */
  nodeFlags?: readonly string[];
}

/** Free ephemeral ports, or consecutive ports from --base-port (checked to be free). */
class PortAllocator {
  private next = 0;
  constructor(private readonly basePort: number | null) {}

  async allocate(purpose: string): Promise<number> {
    if (this.basePort === null) return freePort();
    const port = this.basePort + this.next;
    this.next += 1;
    if (port > 65535) throw new Error(`--base-port ${this.basePort} leaves no port for ${purpose}`);
    await assertPortFree(port, purpose);
    return port;
  }
}

/** Writes a progress line on stderr. */
export function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/** Rounds to `digits` decimals. */
export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** A JSON request body of one operation in bench/queries/. */
export function operationBody(file: string, operationName: string): string {
  return JSON.stringify({ query: readFileSync(join(ROOT, 'bench', 'queries', file), 'utf8'), operationName });
}

/** One benchmark run: what the runner sets up once and every scenario uses. */
export class Bench {
  /** The dashboard operation's request body (bench/queries/dashboard.graphql). */
  readonly dashboard = operationBody('dashboard.graphql', 'BenchDashboard');
  /** The small operation's request body (bench/queries/small.graphql). */
  readonly small = operationBody('small.graphql', 'BenchSmall');
  /** Results by name, in the order recorded. */
  readonly results = new Map<string, ScenarioRecord>();
  /** CPU profile summaries (`--profile`). */
  readonly profiles: ProfileSummary[] = [];
  /** Facts scenarios share (e.g. the dashboard's analysis), by name. */
  readonly facts = new Map<string, unknown>();
  /** The scenario running now (set by the runner). */
  current: Scenario | null = null;
  private readonly ports: PortAllocator;
  private readonly profiled = new Set<Service>();
  private readonly started = new Map<SharedServer, Service>();

  private constructor(
    /** The flags. */
    readonly args: BenchArgs,
    /** The scenarios this run runs, in order. */
    readonly selected: readonly Scenario[],
    /** The simulator every gateway uses. */
    readonly sim: Service,
    ports: PortAllocator,
  ) {
    this.ports = ports;
  }

  /** Starts the simulator and returns a bench around it. */
  static async start(args: BenchArgs, selected: readonly Scenario[]): Promise<Bench> {
    const ports = new PortAllocator(args.basePort);
    const simPort = await ports.allocate('simulator');
    const sim = await startService({
      name: 'simulator',
      args: [
        join(ROOT, 'dist', 'src', 'simulator', 'main.js'),
        '--port',
        String(simPort),
        '--host',
        HOST,
        '--latency',
        String(args.latencyMs),
        '--rate-limit',
        'off',
      ],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production' },
      cwd: ROOT,
      port: simPort,
      ready: /^http:\/\/\S+\/req$/m,
    });
    log(`simulator on port ${simPort}, ${args.latencyMs} ms added latency`);
    return new Bench(args, selected, sim, ports);
  }

  /** A port for a new process (free, or the next one from `--base-port`). */
  allocatePort(purpose: string): Promise<number> {
    return this.ports.allocate(purpose);
  }

  /** Records one result under `name` (a scenario may record several, e.g. both replicas halves). */
  record<T extends ScenarioRecord>(name: string, result: T): void {
    this.results.set(name, result);
  }

  /** Whether `--profile` names the running scenario. */
  get profiling(): boolean {
    return this.current !== null && this.args.profile === this.current.name;
  }

  /** `node` flags for a process that is (or is not) profiled. */
  profileFlags(profile: boolean): string[] {
    const target = this.args.profile;
    if (!profile || target === null) return [];
    // Source maps only for a profile (its frames then name TypeScript lines); otherwise a server
    // runs as `npm start` runs it, without them (they cost memory and some speed).
    return ['--enable-source-maps', '--cpu-prof', '--cpu-prof-dir', RESULTS, '--cpu-prof-name', `${target}.cpuprofile`];
  }

  /** Marks a started process as profiled, so {@link stopServer} summarizes its profile. */
  markProfiled(service: Service): void {
    this.profiled.add(service);
  }

  /** The environment of a gateway process: only what the benchmark sets (plus PATH/HOME). */
  gatewayEnvironment(
    port: number,
    settings: Record<string, string>,
    options: GatewayEnvOptions = {},
  ): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'production',
      HOST,
      PORT: String(port),
      STATEV_BASE_URL: this.sim.origin + '/req',
      LOG_LEVEL: 'silent',
      CACHE_FILE: join(CACHE_FILES, `gateway-${port}`),
      // The simulator runs without a rate limit here, so the gateway's budget is off too (the
      // rate-limited group sets both).
      UPSTREAM_RATE_LIMIT: 'off',
      ...settings,
      ...this.args.gatewayEnv,
      ...(options.pinned ? settings : {}),
    };
    for (const name of options.omit ?? []) delete env[name];
    return env;
  }

  /**
   * Starts a gateway process (`dist/src/main.js`, or `--gateway-root`'s) with `settings`
   * on top of the defaults, waits for `/healthz`, and returns it. Stop it with {@link stopServer}.
   */
  async startGateway(
    name: string,
    settings: Record<string, string> = {},
    options: GatewayEnvOptions = {},
  ): Promise<Service> {
    const profile = options.profile ?? this.profiling;
    const port = await this.ports.allocate(name);
    const root = this.args.gatewayRoot === null ? ROOT : resolve(this.args.gatewayRoot);
    const main = join(root, 'dist', 'src', 'main.js');
    if (!existsSync(main))
      throw new Error(`${main} is missing: run npm run build${this.args.gatewayRoot === null ? '' : ` in ${root}`}`);
    const shown = Object.entries(settings).map(
      ([k, v]) => `${k}=${/SECRET|MASTER_KEY/.test(k) ? '<random, same on every replica>' : v}`,
    );
    log(`starting ${name} on port ${port}${shown.length > 0 ? ` (${shown.join(' ')})` : ''}`);
    const service = await startService({
      name,
      args: [...this.profileFlags(profile), ...startNodeFlags(), ...(options.nodeFlags ?? []), main],
      env: this.gatewayEnvironment(port, settings, options),
      cwd: root,
      port,
      ready: /StateV GraphQL gateway on /,
    });
    if (profile) this.markProfiled(service);
    const health = await fetch(`${service.origin}/healthz`, { signal: AbortSignal.timeout(5000) });
    if (!health.ok) throw new Error(`${name} answered ${health.status} on /healthz`);
    return service;
  }

  /** Stops a server; when it ran with --cpu-prof, summarizes the profile it wrote. */
  async stopServer(service: Service): Promise<void> {
    await stopService(service, 15_000);
    const target = this.args.profile;
    if (target === null || !this.profiled.has(service)) return;
    const file = join(RESULTS, `${target}.cpuprofile`);
    for (let i = 0; i < 50 && !existsSync(file); i += 1) await sleep(100);
    if (!existsSync(file)) throw new Error(`${service.name} did not write ${file}`);
    const summary = summarizeProfile(file);
    this.profiles.push(summary);
    log(`profile of ${target}: ${file} (${summary.idlePercent} % idle; shares below are of the busy time)`);
    log('  hottest functions (self time):');
    for (const spot of summary.self.slice(0, 15)) log(`    ${spot.percent.toFixed(1).padStart(5)} %  ${spot.name}`);
    log('  our code (inclusive time):');
    for (const spot of summary.ourCode.slice(0, 15)) log(`    ${spot.percent.toFixed(1).padStart(5)} %  ${spot.name}`);
    log('  by package / folder (self time):');
    for (const spot of summary.byOrigin.slice(0, 12)) log(`    ${spot.percent.toFixed(1).padStart(5)} %  ${spot.name}`);
  }

  /**
   * A shared server, started on first use (profiled when `--profile` names a scenario
   * that lists it in `uses`). The runner stops it after its last scenario.
   */
  async shared(server: SharedServer): Promise<Service> {
    const running = this.started.get(server);
    if (running) return running;
    const profile = this.selected.some(
      (scenario) => scenario.name === this.args.profile && scenario.uses?.includes(server),
    );
    const service = await server.start(this, profile);
    this.started.set(server, service);
    return service;
  }

  /** Stops the shared servers no scenario in `remaining` uses. */
  async stopSharedExcept(remaining: readonly Scenario[]): Promise<void> {
    for (const [server, service] of [...this.started]) {
      if (remaining.some((scenario) => scenario.uses?.includes(server))) continue;
      this.started.delete(server);
      await this.stopServer(service);
    }
  }

  /** Waits until the gateways have finished what was in flight: upstream log and operation counts stop changing. */
  async settle(gateways: readonly Service[]): Promise<void> {
    let last = '';
    for (let i = 0; i < 60; i += 1) {
      const [upstream, operations] = await Promise.all([
        simRequests(this.sim.origin),
        Promise.all(gateways.map((gateway) => gatewayOperations(gateway.origin))),
      ]);
      const now = `${upstream.count}|${operations.map(total).join(',')}`;
      if (now === last) return;
      last = now;
      await sleep(250);
    }
  }
}
