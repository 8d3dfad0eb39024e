/**
 * One graph over several characters: an access token over several vault keys answers
 * with each key for what that key's character owns. Each key has its part of the
 * operation ({@link KeyPart}: its own session, so its own budget, cache and cooldowns, and
 * its own loaders); every object a part answered is remembered as that part's, so the
 * fields below it (a company's stores, a building's rooms, a bank account's
 * transactions…) run with the same key.
 *
 * Domain resolvers never call this module: they always see one key's context. The
 * schema's per-character wrapper (`src/graph/execution/per-character.ts`) decides, in one place,
 * which key's context each field runs with: a root field declared `perCharacter` runs
 * once per key ({@link mergeAcrossKeys}, {@link firstAcrossKeys}) or with the key owning
 * the company it names ({@link asCompanyOwner}); every field resolver below runs with the
 * key that answered its root ({@link owned}). Subscriptions open with `subscribeAsOwner`
 * and `subscribeAcrossKeys` (owner-subscriptions.ts). With a single key (`ctx.owners`
 * absent) none of this runs.
 */
import type { GraphQLResolveInfo } from 'graphql';
import type { UpstreamSession } from '../../economy';
import { GatewayError } from '../../errors/gateway-error';
import type { ListItemErrors } from './list-item-errors';
import type { MaybePromise } from './maybe-promise';
import { whenReady } from './maybe-promise';
import type { Loaders } from './loader';

/** What this module reads of a resolver's context (the `GatewayContext`, which names this module's types). */
export interface OwnedContext {
  /** The parts of a token over several characters; absent with one key. */
  owners?: Owners;
  /** The operation's (or the part's) session. */
  session: UpstreamSession;
  /** The operation's loaders (or the part's). */
  loaders: Loaders;
  /** The operation's list-item errors. */
  itemErrors: ListItemErrors;
}

/** One key of a token over several characters, and the context its fields run with. */
export interface KeyPart {
  /** The vault entry of the character (never its key or secret). */
  readonly character: { readonly id: string; readonly name: string };
  /** The operation's context with this key's session, loaders and secret (a `GatewayContext`). */
  readonly context: OwnedContext;
}

/** The id an object is known by: its own `id` (a company, building, room, bank account…), else none. */
function idOf(value: object): string | undefined {
  const { id } = value as { id?: unknown };
  return typeof id === 'string' ? id : undefined;
}

/**
 * The parts of one operation over several keys, and which part answered which object. An
 * object is known by its id, not by identity: TypeGraphQL hands a field resolver a copy of
 * its root (an instance of the root's class), and the upstream's ids are unique across
 * characters. An object without an id of its own (a write's payload, a site document) is
 * known by the company or building it names (`factoryId`, `buildingId`).
 */
export class Owners {
  private readonly byId = new Map<string, KeyPart>();

  /** One per character, in the token's order (the first is the operation's own session). */
  readonly parts: readonly KeyPart[];

  /** @param parts - one per character, in the token's order */
  constructor(parts: readonly KeyPart[]) {
    this.parts = parts;
  }

  /** Remembers `value` (and, for a list, each object in it) as answered by `part`, by id; returns it. */
  claim<T>(value: T, part: KeyPart): T {
    if (value === null || typeof value !== 'object') return value;
    const items: unknown[] = Array.isArray(value) ? value : [value];
    for (const item of items) {
      const id = item !== null && typeof item === 'object' ? idOf(item) : undefined;
      if (id !== undefined) this.byId.set(id, part);
    }
    return value;
  }

  /** The part that answered `root` (by its id, else by the company or building it names), or undefined. */
  partOf(root: object): KeyPart | undefined {
    const { factoryId, buildingId } = root as { factoryId?: unknown; buildingId?: unknown };
    for (const id of [idOf(root), factoryId, buildingId]) {
      const part = typeof id === 'string' ? this.byId.get(id) : undefined;
      if (part) return part;
    }
    return undefined;
  }
}

/**
 * The part that answered `root`; for an object no part claimed in this operation (a
 * subscription's event, built by a poll before the event's operation), the part whose list
 * holds the company or building it names (`factoryId`, `buildingId`), claimed from then on.
 * Undefined when none does.
 */
async function lookUpPart(owners: Owners, root: object): Promise<KeyPart | undefined> {
  const { factoryId, buildingId } = root as { factoryId?: unknown; buildingId?: unknown };
  const part =
    typeof factoryId === 'string'
      ? await partOwning(owners, 'factories', factoryId)
      : typeof buildingId === 'string'
        ? await partOwning(owners, 'buildings', buildingId)
        : undefined;
  if (part) owners.claim(root, part);
  return part;
}

/** The part whose company (`factories`) or building (`buildings`) list holds `id`, or undefined; see {@link findAcrossKeys}. */
async function partOwning(owners: Owners, list: 'factories' | 'buildings', id: string): Promise<KeyPart | undefined> {
  const found = await findAcrossKeys<{ id: string }>(
    owners,
    (keyContext) => keyContext.loaders[list].list.load('all'),
    (item) => item.id === id,
  );
  return found ? owners.partOf(found) : undefined;
}

/** What a subscription or write names by id: a company, a building, or a bank account (of a company or a building). */
export type OwnedKind = 'factories' | 'buildings' | 'bankAccounts';

/**
 * The part one of whose companies (first) or buildings holds the bank account `id`, from
 * each key's lists and their accounts (each list at most once per operation, usually from
 * its cache), or undefined.
 *
 * @throws the first failing key's error when no list holds it and a list failed
 */
async function partOwningAccount(owners: Owners, id: string): Promise<KeyPart | undefined> {
  const accountsOf = async (
    keyContext: OwnedContext,
    list: 'factories' | 'buildings',
  ): Promise<Array<{ id: string }>> => {
    const owned = await keyContext.loaders[list].list.load('all');
    // A company or building without accounts may answer 404: none there.
    const none = (error: unknown): [] => {
      if (error instanceof GatewayError && error.code === 'NOT_FOUND') return [];
      throw error;
    };
    const accounts = await Promise.all(
      owned.map((item) => keyContext.loaders[list].bankAccounts.load(item.id).catch(none)),
    );
    return accounts.flat();
  };
  let failure: unknown = null;
  for (const list of ['factories', 'buildings'] as const) {
    try {
      const found = await findAcrossKeys(
        owners,
        (keyContext) => accountsOf(keyContext, list),
        (account) => account.id === id,
      );
      if (found) return owners.partOf(found);
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== null) throw failure instanceof Error ? failure : new Error(String(failure));
  return undefined;
}

/**
 * Runs a field of `root` with the context of the key that answered `root` (the
 * operation's own context with one key, or for an object no key's list holds), and claims
 * the result for the same key, so that the fields below it use that key too.
 */
export function owned<T, C extends OwnedContext>(
  ctx: C,
  root: object,
  run: (ctx: C) => MaybePromise<T>,
): MaybePromise<T> {
  // Not async: with one key this is the field's own value or promise, with no extra turn.
  const owners = ctx.owners;
  if (!owners) return run(ctx);
  const part = owners.partOf(root);
  if (part) return whenReady(run(part.context as C), (value) => owners.claim(value, part));
  // An object naming no company or building (a viewer, an auction's change): the operation's own key, at once.
  const { factoryId, buildingId } = root as { factoryId?: unknown; buildingId?: unknown };
  if (typeof factoryId !== 'string' && typeof buildingId !== 'string') return run(ctx);
  return lookUpPart(owners, root).then((found) =>
    found ? whenReady(run(found.context as C), (value) => owners.claim(value, found)) : run(ctx),
  );
}

/**
 * The context of the key whose company (`factories`) or building (`buildings`) list holds
 * `id` (a write or a subscription naming it, from a token over several characters), and a
 * function claiming a result for that key; the operation's own context with one key, or
 * when no list holds the id (the upstream then answers for it).
 *
 * @throws the first failing key's error when no list holds it and a key's list failed
 */
export async function ownerOfId<C extends OwnedContext>(
  ctx: C,
  list: OwnedKind,
  id: string,
): Promise<{ context: C; claim: <T>(value: T) => T }> {
  const owners = ctx.owners;
  const part = owners
    ? await (list === 'bankAccounts' ? partOwningAccount(owners, id) : partOwning(owners, list, id))
    : undefined;
  if (!owners || !part) return { context: ctx, claim: (value) => value };
  return { context: part.context as C, claim: (value) => owners.claim(value, part) };
}

/**
 * The context of the key whose company list holds `factoryId` (a write naming a company,
 * from a token over several characters), and a function claiming a result for that key;
 * see {@link ownerOfId}.
 *
 * @throws the first failing key's error when no list holds it and a key's list failed
 */
function companyContext<C extends OwnedContext>(
  ctx: C,
  factoryId: string,
): Promise<{ context: C; claim: <T>(value: T) => T }> {
  return ownerOfId(ctx, 'factories', factoryId);
}

/** The character whose key answered `root`, or undefined (one key, or an object no key claimed). */
export function ownerOf(ctx: OwnedContext, root: object): KeyPart['character'] | undefined {
  return ctx.owners?.partOf(root)?.character;
}

/**
 * A root list over every key (`factories`, `buildings`, the auction lists): `load` once
 * per key with that key's context, the lists joined in the token's order of characters,
 * each item claimed by its key. An object several keys answer (an auction open to several
 * of the characters) is listed once, claimed by the first. A key whose list fails leaves
 * only its own items out, with its error at the field's path (`extensions.character`);
 * when every key fails, rejects with the first key's error (the field is null).
 */
export async function mergeAcrossKeys<T, C extends OwnedContext>(
  ctx: C,
  owners: Owners,
  info: GraphQLResolveInfo,
  load: (ctx: C) => MaybePromise<T[] | null>,
): Promise<T[]> {
  const settled = await Promise.allSettled(owners.parts.map(async (part) => load(part.context as C)));
  const merged: T[] = [];
  const seen = new Set<string>();
  const failures: Array<{ error: Error; part: KeyPart }> = [];
  let stale = null;
  for (const [index, outcome] of settled.entries()) {
    const part = owners.parts[index];
    if (!part) continue;
    if (outcome.status === 'rejected') {
      failures.push({
        error: outcome.reason instanceof Error ? outcome.reason : new Error(String(outcome.reason)),
        part,
      });
      continue;
    }
    const list = outcome.value ?? [];
    stale ??= ctx.session.staleInfo(list) ?? null;
    for (const item of list) {
      const id = item !== null && typeof item === 'object' ? idOf(item) : undefined;
      if (id !== undefined && seen.has(id)) continue;
      if (id !== undefined) seen.add(id);
      merged.push(owners.claim(item, part));
    }
  }
  const [first] = failures;
  if (first && failures.length === settled.length) throw first.error;
  for (const { error, part } of failures)
    ctx.itemErrors.reportField(info, error, { character: { id: part.character.id, name: part.character.name } });
  // A merged list holding a stale key's list is stale.
  return ctx.session.markStale(merged, stale);
}

/**
 * A root field looking one object up over every key (`factory(id)`, `building(id)`, a
 * payment request by reference): `run` once per key with that key's context; the first
 * answer that is not null, in the token's order of characters, claimed by its key. Null
 * when every key answers null; rejects with the first failing key's error when no key
 * answers and one failed (the object may be that key's). A key's `NOT_FOUND` only says the
 * object is not that key's: another key's error comes first (`cancelPaymentRequest` of a
 * request no longer open: the owner's `CONFLICT`, not the other keys' `NOT_FOUND`).
 */
export async function firstAcrossKeys<T, C extends OwnedContext>(
  owners: Owners,
  run: (ctx: C) => MaybePromise<T | null | undefined>,
): Promise<T | null> {
  const settled = await Promise.allSettled(owners.parts.map(async (part) => run(part.context as C)));
  let failure: unknown = null;
  for (const [index, outcome] of settled.entries()) {
    const part = owners.parts[index];
    if (!part) continue;
    if (outcome.status === 'rejected') {
      if (failure === null || (isNotFound(failure) && !isNotFound(outcome.reason))) failure = outcome.reason;
      continue;
    }
    if (outcome.value !== null && outcome.value !== undefined) return owners.claim(outcome.value, part);
  }
  if (failure !== null) throw failure instanceof Error ? failure : new Error(String(failure));
  return null;
}

/** True for a `NOT_FOUND` error. */
function isNotFound(error: unknown): boolean {
  return error instanceof GatewayError && error.code === 'NOT_FOUND';
}

/** The first object any key's list holds that matches, claimed by that key (each list at most once per operation, its loader); see {@link firstAcrossKeys}. */
function findAcrossKeys<T extends object>(
  owners: Owners,
  load: (ctx: OwnedContext) => Promise<T[]>,
  matches: (item: T) => boolean,
): Promise<T | null> {
  return firstAcrossKeys<T, OwnedContext>(owners, (keyContext) => load(keyContext).then((list) => list.find(matches)));
}

/**
 * Runs a write naming a company (`updateFactoryOption`, the site-document writes) with
 * the context, so the key and secret, of the key whose company list holds `factoryId`
 * (see {@link companyContext}), and claims its result for that key.
 *
 * @throws the first failing key's error when no list holds it and a key's list failed
 */
export async function asCompanyOwner<T, C extends OwnedContext>(
  ctx: C,
  factoryId: string,
  run: (ctx: C) => MaybePromise<T>,
): Promise<T> {
  const { context, claim } = await companyContext(ctx, factoryId);
  return claim(await run(context));
}
