/**
 * `npm run bench`: the gateway's benchmark (see bench/README.md).
 *
 * Starts the StateV simulator (fixed added latency per upstream request), then runs the
 * selected scenarios of the registry (bench/scenarios/index.ts) in order; each starts
 * the server processes it measures (shared ones, such as the gateway with its defaults,
 * are started once and stopped after their last scenario) and drives them with
 * autocannon. Prints ONE JSON summary on stdout (progress goes to stderr), also written
 * to bench/results/latest.json. Every child process is stopped on exit, on errors and
 * on Ctrl-C.
 */
// Some scenarios run parts of the gateway in this process (the payment desk of the hostile
// attacks), whose TypeGraphQL classes need the metadata polyfill loaded first, as main.ts has it.
import 'reflect-metadata';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseBenchArgs, usage } from './lib/args';
import type { BenchArgs, ScenarioNames } from './lib/args';
import { Bench, log, RESULTS, ROOT } from './lib/bench';
import type { Scenario } from './lib/bench';
import { stopActiveLoad } from './lib/load';
import { killAllNow, stopAll, stopService } from './lib/processes';
import { buildSummary } from './lib/summary';
import { SCENARIOS } from './scenarios';

const NAMES: ScenarioNames = {
  all: SCENARIOS.map((scenario) => scenario.name),
  notProfilable: SCENARIOS.filter((scenario) => scenario.profilable === false).map((scenario) => scenario.name),
};

function selectedScenarios(args: BenchArgs): Scenario[] {
  if (args.profile !== null) return SCENARIOS.filter((scenario) => scenario.name === args.profile);
  const names = args.only;
  return (
    names === null
      ? SCENARIOS.filter((scenario) => scenario.optIn !== true)
      : SCENARIOS.filter((scenario) => names.includes(scenario.name))
  ).filter((scenario) => !args.skip.includes(scenario.name));
}

async function run(args: BenchArgs): Promise<void> {
  const startedAt = Date.now();
  mkdirSync(RESULTS, { recursive: true });
  for (const file of ['dist/src/simulator/main.js', 'dist/bench/floor-server.js']) {
    if (!existsSync(join(ROOT, file))) throw new Error(`${file} is missing: run npm run bench (it builds first)`);
  }
  if (args.profile !== null) rmSync(join(RESULTS, `${args.profile}.cpuprofile`), { force: true });
  const selected = selectedScenarios(args);
  log(
    `scenarios: ${selected.map((scenario) => scenario.name).join(', ')}; ${args.durationSeconds} s each after ${args.warmupSeconds} s warm-up; latency ${args.latencyMs} ms`,
  );

  const bench = await Bench.start(args, selected);
  for (const [index, scenario] of selected.entries()) {
    bench.current = scenario;
    const scenarioStartedAt = Date.now();
    await scenario.run(bench);
    await bench.stopSharedExcept(selected.slice(index + 1));
    // Where a run's time goes (CI's smoke run is bounded): the scenario with its processes' stops.
    log(`${scenario.name}: ${((Date.now() - scenarioStartedAt) / 1000).toFixed(1)} s in all`);
  }
  bench.current = null;
  await stopService(bench.sim);

  const summary = buildSummary(bench, startedAt);
  const text = JSON.stringify(summary, null, 2);
  const out = args.out
    ? resolve(args.out)
    : join(
        RESULTS,
        args.only !== null || args.skip.length > 0 || args.profile !== null ? 'partial.json' : 'latest.json',
      );
  writeFileSync(out, `${text}\n`);
  process.stdout.write(`${text}\n`);
  log(`summary written to ${out} (${summary.totalSeconds} s)`);
  if (!summary.allScenariosOk) process.exitCode = 1;
}

async function main(): Promise<void> {
  let args: BenchArgs;
  try {
    args = parseBenchArgs(process.argv.slice(2), NAMES);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${usage(NAMES)}\n`);
    process.exitCode = 2;
    return;
  }
  if (args.help) {
    process.stdout.write(`${usage(NAMES)}\n`);
    return;
  }
  process.on('exit', killAllNow);
  let interrupted = false;
  const interrupt = (signal: NodeJS.Signals): void => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping the load and every child process`);
    stopActiveLoad();
    void stopAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  // Bound the whole run: a few minutes normally, less with --quick.
  // replicas runs two halves (the registry counts it once), each with its first views.
  const limitSeconds =
    120 +
    (args.durationSeconds + args.warmupSeconds + 15) * (SCENARIOS.length + 1) +
    args.manyKeys * 0.5 +
    args.replicaKeys * 1.5 +
    (args.quick ? 60 : 900); // steady-views: its fill under 10/60, then 5 minutes of views
  const watchdog = setTimeout(() => {
    process.stderr.write(`[bench] the run exceeded ${Math.round(limitSeconds)} s; stopping\n`);
    stopActiveLoad();
    void stopAll().finally(() => process.exit(1));
  }, limitSeconds * 1000);
  watchdog.unref();
  try {
    await run(args);
  } catch (error) {
    process.stderr.write(`[bench] failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  } finally {
    clearTimeout(watchdog);
    await stopAll();
  }
}

void main();
