import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import { keyHeldByGateway } from '../gateway-context';
import type { GatewayContext } from '../gateway-context';
import { badInputError, GatewayError, missingKeyError } from '../../errors/gateway-error';
import { UpstreamCost } from '../../field-rules/cost';
import { CheckedBeforeOwner } from '../../field-rules/per-character';
import { ENDPOINTS, describeSource } from '../../upstream/endpoints';
import { Factory } from '../factories/factory.type';
import { loaderSlotReader, sessionSlotWriter } from './site-document.api';
import { NotJsonError } from './json-pieces';
import { CLEARED, NAME_PATTERN, prepareValue } from './site-document.codec';
import type { Manifest, PreparedValue } from './site-document.codec';
import { findDocument, infoOf, layoutOf, readAll, readChunks } from './site-document.layout';
import { within } from '../shared/within';
import { BYTES_PER_SLOT, checkFits, conflictError, executePlan, planWrite } from './site-document.store';
import type { WritePlan, WriteProgress } from './site-document.store';
import {
  DeleteSiteDocumentInput,
  DeleteSiteDocumentPayload,
  JSONScalar,
  NAME_RULE,
  SetSiteDocumentInput,
  SetSiteDocumentPayload,
  SiteDocument,
  SiteDocumentCapacity,
  SiteDocumentInfo,
} from './site-document.type';

/** How long a write that went on in the background may wait for budget in total, ms. */
const BACKGROUND_WRITE_PATIENCE_MS = 15 * 60_000;

/** A document read or written in this operation, with its canonical text when known (then `value` needs no read). */
type KnownDocument = SiteDocument & { text?: string };

/** The GraphQL document of a manifest. */
function documentOf(manifest: Manifest, manifestSlot: number, factoryId: string, text?: string): KnownDocument {
  return {
    ...infoOf(manifest, manifestSlot),
    sha256: manifest.sha256,
    encoding: manifest.encoding,
    manifestSlot,
    factoryId,
    text,
  };
}

/** `BAD_USER_INPUT` unless the name follows the rule. */
function checkName(name: string, argument: string): void {
  if (!NAME_PATTERN.test(name))
    throw badInputError(`A site document name is ${NAME_RULE}; got ${JSON.stringify(name.slice(0, 40))}.`, argument);
}

/** `BAD_USER_INPUT` unless `expectedVersion` is absent or a whole number ≥ 0. */
function checkExpectedVersion(expected: number | null | undefined): void {
  if (expected !== undefined && expected !== null && expected < 0)
    throw badInputError(
      'expectedVersion is a version (1 or more), or 0 for "only if the document does not exist".',
      'input.expectedVersion',
    );
}

/** The secret of a write, as `updateFactoryOption` takes it; `BAD_USER_INPUT` without one. */
function secretOf(ctx: GatewayContext, given: string | null | undefined, mutation: string): string {
  if (!ctx.apiKey) throw missingKeyError();
  // With the server's key (public-site mode) only the server's secret is used.
  const secret = keyHeldByGateway(ctx) ? ctx.apiSecret : given?.trim() || ctx.apiSecret;
  if (!secret)
    throw badInputError(
      `${mutation} needs the API secret: set input.apiSecret or send the X-Api-Secret header.`,
      'input.apiSecret',
    );
  return secret;
}

/** setSiteDocument's input checks, before any upstream request (see `CheckedBeforeOwner`): name, expectedVersion, value size and fit. */
function checkSetInput(args: Record<string, unknown>, ctx: unknown): void {
  const input = args.input as SetSiteDocumentInput;
  checkName(input.name, 'input.name');
  checkExpectedVersion(input.expectedVersion);
  checkFits(prepare(input.name, input.value, ctx as GatewayContext), (ctx as GatewayContext).optionSlots);
}

/** deleteSiteDocument's input checks, before any upstream request (see `CheckedBeforeOwner`): name and expectedVersion. */
function checkDeleteInput(args: Record<string, unknown>): void {
  const input = args.input as DeleteSiteDocumentInput;
  checkName(input.name, 'input.name');
  checkExpectedVersion(input.expectedVersion);
}

/**
 * The value as it will be stored: canonical JSON of at most `SITE_DOCUMENT_MAX_BYTES`.
 *
 * @throws GatewayError `BAD_USER_INPUT` naming the rule
 */
function prepare(name: string, value: unknown, ctx: GatewayContext): PreparedValue {
  let prepared: PreparedValue;
  try {
    prepared = prepareValue(name, value, ctx.siteDocuments.encoding);
  } catch (error) {
    if (error instanceof NotJsonError)
      throw badInputError(`input.value must be a JSON value: ${error.message}.`, 'input.value');
    throw error;
  }
  const max = ctx.siteDocuments.maxBytes;
  if (prepared.bytes > max)
    throw badInputError(
      `input.value is ${prepared.bytes} bytes of canonical JSON; SITE_DOCUMENT_MAX_BYTES allows at most ${max}.`,
      'input.value',
    );
  return prepared;
}

/**
 * `Factory.siteDocument`, `Factory.siteDocuments`, `Factory.siteDocumentCapacity`, the
 * two mutations, and `SiteDocument.value`, which reads the chunks only when selected.
 * Reads go through the operation's option loader (so through the per-key cache,
 * coalescing and budget, and in public-site mode with the server's key); writes through
 * the economy's write path, paced by the key's budget (see docs/site-documents.md).
 */
@Resolver(() => SiteDocument)
export class SiteDocumentResolver {
  /** The document's value, from its chunks (or from the write that produced it). */
  @UpstreamCost({ requests: 'optionSlots' })
  @FieldResolver(() => JSONScalar, {
    nullable: true,
    description: `The JSON value, exactly as written (object keys in canonical, sorted order). Its chunks are read only when this field is selected (${describeSource(ENDPOINTS.factoryOption)}) and checked against the manifest's hashes and SHA-256: a mismatch is SITE_DOCUMENT_CORRUPT naming the slots, never a wrong value.`,
  })
  async value(@Root() document: KnownDocument, @Ctx() ctx: GatewayContext): Promise<unknown> {
    if (document.text !== undefined) return JSON.parse(document.text) as unknown;
    const reader = loaderSlotReader(ctx.loaders.factories, document.factoryId);
    const stored = await findDocument(reader, document.name, ctx.optionSlots);
    if (!stored || stored.manifest.version !== document.version) return null;
    const read = await readChunks(reader, stored);
    return JSON.parse(read.text) as unknown;
  }

  /**
   * Writes a document copy-on-write (see `site-document.store.ts`).
   *
   * @throws GatewayError `BAD_USER_INPUT`, `SITE_DOCUMENT_TOO_LARGE` (before any upstream
   *   request when it cannot fit even empty slots), `CONFLICT`, and the upstream's errors
   */
  @UpstreamCost({ requests: 'optionSlots', perCharacter: 'owner' })
  @CheckedBeforeOwner(checkSetInput)
  @Mutation(() => SetSiteDocumentPayload, {
    description: `Writes a site document into the company's option slots (${describeSource(ENDPOINTS.factoryOptionUpdate)} one request per slot written; the API secret from input.apiSecret or the X-Api-Secret header). Reads every slot first (${ENDPOINTS.factoryOption.route}, through the cache) so that slots written by anything else are never touched. Copy-on-write: changed chunks go into free slots (never set or cleared ones first), the committing slot is written last; a failure part-way leaves the previous version readable. The replaced chunks are not written again: the commit frees them (no manifest lists them; siteDocumentCapacity counts them free and a later write reuses them), so a change takes one write per changed chunk plus one. An unchanged value takes no write. Writes are paced by the key's budget; what does not finish within the request's patience (UPSTREAM_PATIENCE_MS, or Prefer: wait=N) goes on in the background (committed: false, retryAfterSeconds). Name, value size (SITE_DOCUMENT_MAX_BYTES) and secret are checked before any upstream request (BAD_USER_INPUT), and so is a value that cannot fit the slots at all (SITE_DOCUMENT_TOO_LARGE).`,
  })
  async setSiteDocument(
    @Arg('input', () => SetSiteDocumentInput, {
      description: 'Which document of which company, its new value, an optional expectedVersion and the API secret.',
    })
    input: SetSiteDocumentInput,
    @Ctx() ctx: GatewayContext,
  ): Promise<SetSiteDocumentPayload> {
    const apiSecret = secretOf(ctx, input.apiSecret, 'setSiteDocument');
    checkName(input.name, 'input.name');
    checkExpectedVersion(input.expectedVersion);
    const value = prepare(input.name, input.value, ctx);
    checkFits(value, ctx.optionSlots);
    return this.write(ctx, input.factoryId, input.expectedVersion, apiSecret, value.name, (layout) =>
      planWrite(layout, value, { expectedVersion: input.expectedVersion, now: Date.now(), slotCount: ctx.optionSlots }),
    ).then(({ plan, progress, committed, retryAfterSeconds }) => ({
      document: documentOf(plan.manifest, plan.manifestSlot, input.factoryId, value.text),
      upstreamWrites: progress.writes,
      replacedVersion: plan.previousVersion,
      committed,
      retryAfterSeconds,
    }));
  }

  /** Removes a document: its committing slot first (the document is gone), then its chunks and what its earlier versions left behind. */
  @UpstreamCost({ requests: 'optionSlots', perCharacter: 'owner' })
  @CheckedBeforeOwner(checkDeleteInput)
  @Mutation(() => DeleteSiteDocumentPayload, {
    description: `Removes a site document and frees its slots: clears the committing slot first (the document is gone at once), then the chunk slots and the chunks its earlier versions left behind (freed by later commits but not written), each with "." as clients clear slots (${describeSource(ENDPOINTS.factoryOptionUpdate)} the API secret from input.apiSecret or the X-Api-Secret header). Slots written by anything else are never touched. Checked before any upstream request like setSiteDocument.`,
  })
  async deleteSiteDocument(
    @Arg('input', () => DeleteSiteDocumentInput, {
      description: 'Which document of which company, an optional expectedVersion and the API secret.',
    })
    input: DeleteSiteDocumentInput,
    @Ctx() ctx: GatewayContext,
  ): Promise<DeleteSiteDocumentPayload> {
    const apiSecret = secretOf(ctx, input.apiSecret, 'deleteSiteDocument');
    checkName(input.name, 'input.name');
    checkExpectedVersion(input.expectedVersion);
    const { plan, progress } = await this.write(
      ctx,
      input.factoryId,
      input.expectedVersion,
      apiSecret,
      input.name,
      (layout) => {
        const current = layout.documents.get(input.name);
        const currentVersion = current?.manifest.version ?? 0;
        if (
          input.expectedVersion !== undefined &&
          input.expectedVersion !== null &&
          input.expectedVersion !== currentVersion
        ) {
          throw conflictError(input.name, currentVersion, input.expectedVersion);
        }
        if (!current) return null;
        const { manifest, manifestSlot } = current;
        const clear = (slot: number, role: 'commit' | 'clear'): WritePlan['writes'][number] => ({
          slot,
          title: CLEARED,
          data: CLEARED,
          role,
        });
        // The slots go back to other tools: the earlier versions' chunks too (a change frees them without a write).
        const freed = [...manifest.chunks.map((chunk) => chunk.slot), ...(layout.leftovers.get(input.name) ?? [])];
        return {
          name: input.name,
          manifest,
          manifestSlot,
          writes: [clear(manifestSlot, 'commit'), ...freed.map((slot) => clear(slot, 'clear'))],
          previousVersion: manifest.version,
          unchanged: false,
          freed,
        };
      },
    );
    return {
      freedSlots: plan ? [plan.manifestSlot, ...plan.freed] : [],
      upstreamWrites: progress.writes,
      replacedVersion: plan?.previousVersion ?? 0,
    };
  }

  /**
   * The write path of both mutations: one write per key and company at a time, the slots
   * read through the operation's loaders, the plan run with a detached session, raced
   * against the operation's patience.
   */
  private async write<P extends WritePlan | null>(
    ctx: GatewayContext,
    factoryId: string,
    expectedVersion: number | null | undefined,
    apiSecret: string,
    name: string,
    makePlan: (layout: ReturnType<typeof layoutOf>) => P,
  ): Promise<{ plan: P; progress: WriteProgress; committed: boolean; retryAfterSeconds: number | null }> {
    const patienceMs = ctx.siteDocuments.patienceMs;
    // One company's documents: one writer at a time, whatever key it writes with.
    const lockKey = factoryId;
    const locks = ctx.session.processWriteLocks();
    const running = locks.commitExpected(lockKey);
    const local =
      running !== null && running - Date.now() > patienceMs ? null : await locks.acquire(lockKey, patienceMs);
    const refuse = (at: number | null): GatewayError<'CONFLICT'> =>
      new GatewayError(
        'CONFLICT',
        `Another site-document write to this company is still running; retry when it has committed.`,
        {
          name,
          reason: 'WRITE_IN_PROGRESS',
          retryAfterSeconds: Math.max(1, Math.ceil(((at || Date.now() + patienceMs) - Date.now()) / 1000)),
        },
      );
    if (!local) throw refuse(locks.commitExpected(lockKey));
    const session = ctx.session.detached(BACKGROUND_WRITE_PATIENCE_MS);
    // Until the plan is known: its reads and one write, behind the writes queued now.
    let expected = (): number => session.plannedCommit(1, false);
    locks.expectCommit(lockKey, () => expected());
    // Across replicas (and keys of the same character on them): Redis's lock, telling its holder's commit.
    const replicas = await ctx.session.lockWrites(`site-document:${factoryId}`, () => expected(), patienceMs);
    if (!replicas.held) {
      local();
      throw refuse(replicas.commitAt);
    }
    const release = (): void => {
      replicas.release();
      local();
    };
    let handedOff = false;
    try {
      const contents = await readAll(loaderSlotReader(ctx.loaders.factories, factoryId), ctx.optionSlots);
      let plan = makePlan(layoutOf(contents));
      const progress: WriteProgress = { writes: 0, committed: false };
      if (!plan || plan.unchanged) return { plan, progress, committed: true, retryAfterSeconds: null };
      const conditional = expectedVersion !== undefined && expectedVersion !== null;
      const checks = conditional ? 2 : 1;
      const left = (): number =>
        (plan?.writes.filter((w) => w.role !== 'clear').length ?? 0) - progress.writes + checks;
      const writer = sessionSlotWriter(session, factoryId, apiSecret, (slot) => {
        ctx.loaders.factories.option.clear({ id: factoryId, slot });
      });
      // Under the lock, a write without expectedVersion reads its committing slot fresh: another key of
      // the character (whose cache this key's does not share) may have committed since; then every slot fresh.
      const replan = async (): Promise<void> => {
        const slot = plan?.manifestSlot ?? 0;
        const fresh = await writer.readFresh(slot);
        const cached = contents[slot - 1] ?? null;
        if (fresh?.title === cached?.title && fresh?.data === cached?.data) return;
        const again = makePlan(layoutOf(await readAll({ read: (other) => writer.readFresh(other) }, ctx.optionSlots)));
        if (again) plan = again;
      };
      const job = (conditional ? Promise.resolve() : replan())
        .then(() => (plan && !plan.unchanged ? executePlan(writer, plan, expectedVersion, progress) : undefined))
        .finally(release);
      handedOff = true;
      expected = (): number => session.plannedCommit(Math.max(1, left()));
      if ((await within(job, patienceMs)).done)
        return { plan: plan as P, progress, committed: true, retryAfterSeconds: null };
      // Not finished in time: the writes go on; this answers now with when they should be done.
      job.catch(() => undefined);
      const last = session.plannedCommit(Math.max(1, left()));
      return {
        plan: plan as P,
        progress,
        committed: progress.committed,
        retryAfterSeconds: progress.committed ? null : Math.max(1, Math.ceil((last - Date.now()) / 1000)),
      };
    } finally {
      if (!handedOff) release();
    }
  }
}

/** The site-document fields of `Factory`. */
@Resolver(() => Factory)
export class FactorySiteDocumentsResolver {
  /** The named document, or null; reads the slots up to its committing slot. */
  @UpstreamCost({ requests: 'optionSlots' })
  @FieldResolver(() => SiteDocument, {
    nullable: true,
    description: `The named JSON document this company keeps in its option slots (written with setSiteDocument), or null when there is none. Reads the slots the document occupies (${describeSource(ENDPOINTS.factoryOption)}), through the per-key cache: from the name's home slot upwards until its committing slot, then the chunks only when value is selected. Every read is checked against the manifest's hashes and SHA-256: a mismatch is SITE_DOCUMENT_CORRUPT naming the slots, never a wrong value. Name: ${NAME_RULE}, else BAD_USER_INPUT before any upstream request.`,
  })
  async siteDocument(
    @Root() factory: Factory,
    @Arg('name', () => String, { description: `The document's name, ${NAME_RULE}.` }) name: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<SiteDocument | null> {
    checkName(name, 'Factory.siteDocument(name)');
    const reader = loaderSlotReader(ctx.loaders.factories, factory.id);
    const stored = await findDocument(reader, name, ctx.optionSlots);
    return stored ? documentOf(stored.manifest, stored.manifestSlot, factory.id) : null;
  }

  /** Every document of the company, newest first, without values. */
  @UpstreamCost({ requests: 'optionSlots' })
  @FieldResolver(() => [SiteDocumentInfo], {
    nullable: true,
    description: `Every site document in this company's option slots, newest first; values are not read (one request per slot, OPTION_SLOTS of them, through the cache: ${describeSource(ENDPOINTS.factoryOption)}).`,
  })
  async siteDocuments(@Root() factory: Factory, @Ctx() ctx: GatewayContext): Promise<SiteDocumentInfo[]> {
    const layout = layoutOf(await readAll(loaderSlotReader(ctx.loaders.factories, factory.id), ctx.optionSlots));
    return [...layout.documents.values()]
      .map(({ manifest, manifestSlot }) => documentOf(manifest, manifestSlot, factory.id))
      .sort((a, b) => (b.updatedAt?.getTime() ?? 0) - (a.updatedAt?.getTime() ?? 0) || a.name.localeCompare(b.name));
  }

  /** Free and foreign slots, and an estimate of the bytes that still fit. */
  @UpstreamCost({ requests: 'optionSlots' })
  @FieldResolver(() => SiteDocumentCapacity, {
    nullable: true,
    description: `Which option slots are free for site documents and which hold data written by something else, and about how many bytes of JSON still fit (an estimate: compression varies). Reads every slot through the cache: ${describeSource(ENDPOINTS.factoryOption)}`,
  })
  async siteDocumentCapacity(@Root() factory: Factory, @Ctx() ctx: GatewayContext): Promise<SiteDocumentCapacity> {
    const layout = layoutOf(await readAll(loaderSlotReader(ctx.loaders.factories, factory.id), ctx.optionSlots));
    const documentSlots = [...layout.documents.values()]
      .flatMap(({ manifest, manifestSlot }) => [manifestSlot, ...manifest.chunks.map((chunk) => chunk.slot)])
      .sort((a, b) => a - b);
    return {
      freeSlots: [...layout.free].sort((a, b) => a - b),
      foreignSlots: layout.foreign,
      documentSlots,
      estimatedFreeBytes: Math.max(0, layout.free.length - 1) * BYTES_PER_SLOT[ctx.siteDocuments.encoding],
    };
  }
}
