/**
 * The registry of the domains: every domain adds itself by naming its files. Each
 * `*.resolver.ts` (a query, mutation or field resolver class) and each
 * `*.subscription.ts` (one subscribable resource, with its `@Subscription` field) in a
 * folder under `src/domains/` is loaded, and every resolver class it exports is part of
 * the schema; each `*.loaders.ts` is loaded and registers its domain's per-operation
 * loaders (`registerLoaders`), each `*.endpoint-rules.ts` what the economy must know of
 * the domain's endpoints (`registerEndpointRules`). There is no hand-kept list: adding a
 * file is adding it.
 */
import { existsSync, readdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import { getMetadataStorage } from 'type-graphql';
import { projectRoot } from '../project-root';
import type { EndpointRules, UpstreamSession } from '../economy';
import { registeredEndpointRules } from './shared/endpoint-rules';
import { lazyLoaders } from './shared/loader';
import type { LoaderOptions, Loaders } from './shared/loader';

/** A TypeGraphQL resolver class (decorated with `@Resolver`). */
export type ResolverClass = abstract new (...args: never[]) => unknown;

/** The `*.resolver`, `*.subscription`, `*.loaders` and `*.endpoint-rules` files of a folder tree with an extension, relative and sorted. */
function roleFiles(folder: string, extension: string): string[] {
  const role = new RegExp(`\\.(resolver|subscription|loaders|endpoint-rules)\\${extension}$`);
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((file) => role.test(file) && !file.endsWith(`.d${extension}`))
    .map((file) => file.split('\\').join('/'))
    .sort();
}

/**
 * The modules (relative to this folder, sorted) the registry loads: one per
 * `*.resolver.ts`, `*.subscription.ts`, `*.loaders.ts` and `*.endpoint-rules.ts` under `src/domains/`. Compiled (`dist/src/`),
 * the list still comes from the sources when they are there, so a file deleted from
 * `src/` but left in `dist/` by an incremental build is not loaded again.
 */
export function registeredFiles(): string[] {
  const extension = extname(__filename);
  const sources = join(projectRoot(), 'src', 'domains');
  if (extension === '.ts' || !existsSync(sources)) return roleFiles(__dirname, extension);
  return roleFiles(sources, '.ts').map((file) => `${file.slice(0, -'.ts'.length)}${extension}`);
}

let loaded: Array<[string, Record<string, unknown>]> | undefined;

/** Every {@link registeredFiles} module with its exports, loaded once (loading a `*.loaders` or `*.endpoint-rules` file registers what it holds). */
function loadedFiles(): Array<[string, Record<string, unknown>]> {
  // The registry loads domain files by name.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const load = (file: string): Record<string, unknown> => require(join(__dirname, file)) as Record<string, unknown>;
  return (loaded ??= registeredFiles().map((file) => [file, load(file)]));
}

/**
 * One operation's loaders, every domain's (see `lazyLoaders`): the context factory's
 * only way to them, so every domain's `*.loaders.ts` has registered before the first.
 */
export function operationLoaders(session: UpstreamSession, options: LoaderOptions): Loaders {
  loadedFiles();
  return lazyLoaders(session, options);
}

/**
 * What every domain tells the economy about its endpoints (each `*.endpoint-rules.ts`):
 * the runtime hands them to the economy it builds (`EconomyOptions.endpointRules`).
 */
export function domainEndpointRules(): readonly EndpointRules[] {
  loadedFiles();
  return registeredEndpointRules();
}

/**
 * Every resolver class of every domain, loaded from {@link registeredFiles}: the
 * exports of those modules that TypeGraphQL knows as resolvers, in file order.
 *
 * @throws Error when a registered file exports no resolver class (a misnamed file).
 */
export function domainResolvers(): ResolverClass[] {
  const resolvers: ResolverClass[] = [];
  for (const [file, exports] of loadedFiles()) {
    if (/\.(loaders|endpoint-rules)\.[^.]+$/.test(file)) continue;
    // TypeGraphQL records a class as a resolver when its module runs, i.e. when loadedFiles requires it.
    const targets = new Set<unknown>(getMetadataStorage().resolverClasses.map((meta) => meta.target));
    const declared = Object.values(exports).filter(
      (value): value is ResolverClass => typeof value === 'function' && targets.has(value),
    );
    if (declared.length === 0)
      throw new Error(
        `src/domains/${file} exports no @Resolver class (files named *.resolver.ts or *.subscription.ts must).`,
      );
    resolvers.push(...declared);
  }
  return resolvers;
}
