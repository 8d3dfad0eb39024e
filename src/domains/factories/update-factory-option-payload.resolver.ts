import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import { keyHeldByGateway } from '../gateway-context';
import type { GatewayContext } from '../gateway-context';
import { badInputError, GatewayError, missingKeyError } from '../../errors/gateway-error';
import { describeBounds } from '../../field-rules/bounds';
import { ENDPOINTS, describeSource } from '../../upstream/endpoints';
import { within } from '../shared/within';
import { updateOption } from './factories.api';
import {
  FactoryOption,
  UPDATE_OPTION_BOUNDS,
  UpdateFactoryOptionInput,
  UpdateFactoryOptionPayload,
} from './factory-option.type';
import { UpstreamCost } from '../../field-rules/cost';
import type { MaybePromise } from '../shared/maybe-promise';
import { quotedValue } from '../shared/quoted-value';
import { siteDocumentOfTitle } from '../shared/site-document-titles';
import type { Grant } from '../../vault';

/**
 * An access token's write of a slot that holds part of a site document (a title in the
 * namespace `~sd:<name>:…`: its committing slot, its chunks, or leftovers of its earlier
 * versions) needs `write:siteDocument:<name>` besides `write:option:<slot>`: `FORBIDDEN`
 * (HTTP 403, `extensions.requiredGrant`) otherwise, before the write. Reads the slot once
 * (`GET /factory/options/{id}/{slot}`, usually from the key's cache). The grants check
 * (`src/graph/validation/grants.rule.ts`) refuses a new title in that namespace before any request.
 *
 * @throws GatewayError `FORBIDDEN`, or the read's upstream error (the slot's owner unknown: no write)
 */
async function refuseSiteDocumentSlot(
  grants: readonly Grant[],
  ctx: GatewayContext,
  input: UpdateFactoryOptionInput,
): Promise<void> {
  const current = await ctx.loaders.factories.option.load({ id: input.factoryId, slot: input.slot });
  const document = current ? siteDocumentOfTitle(current.title) : null;
  if (document === null || grants.some((grant) => grant.kind === 'write-site-document' && grant.name === document))
    return;
  throw new GatewayError(
    'FORBIDDEN',
    `Option slot ${input.slot} holds part of the site document "${quotedValue(document)}": overwriting it needs the grant write:siteDocument:${quotedValue(document)}.`,
    { requiredGrant: `write:siteDocument:${quotedValue(document)}` },
    403,
  );
}

/**
 * The one write: `Mutation.updateFactoryOption`, and `UpdateFactoryOptionPayload.option`,
 * which reads the slot back only when a client selects it.
 */
@Resolver(() => UpdateFactoryOptionPayload)
export class UpdateFactoryOptionPayloadResolver {
  /**
   * Writes one option slot. Bounds (slot, title, data) are checked before execution;
   * the secret comes from `input.apiSecret` or the `X-Api-Secret` header.
   *
   * @throws GatewayError `UNAUTHENTICATED` without a key, `BAD_USER_INPUT` without a
   *   secret, and the upstream's errors (e.g. `FORBIDDEN` for a wrong secret).
   */
  @UpstreamCost({ requests: 1, perCharacter: 'owner' })
  @Mutation(() => UpdateFactoryOptionPayload, {
    description: `Writes one free-text option slot of an owned company. ${describeSource(ENDPOINTS.factoryOptionUpdate)} The write goes ahead of the key's background work and takes the next request its budget allows; when that is later than the request's patience, it answers committed: false with retryAfterSeconds and the write goes on. The API secret comes from input.apiSecret or the X-Api-Secret request header (without either: BAD_USER_INPUT). ${describeBounds(UPDATE_OPTION_BOUNDS)} Checked before any upstream request.`,
  })
  async updateFactoryOption(
    @Arg('input', () => UpdateFactoryOptionInput, {
      description: 'Which slot of which company, the new title and data, and optionally the API secret.',
    })
    input: UpdateFactoryOptionInput,
    @Ctx() ctx: GatewayContext,
  ): Promise<UpdateFactoryOptionPayload> {
    if (!ctx.apiKey) throw missingKeyError();
    // A token over several characters runs with the key of the company's owner (graph/per-character.ts).
    if (ctx.token) await refuseSiteDocumentSlot(ctx.token.grants, ctx, input);
    // With the server's key (public-site mode) only the server's secret is used.
    const apiSecret = keyHeldByGateway(ctx) ? ctx.apiSecret : input.apiSecret?.trim() || ctx.apiSecret;
    if (!apiSecret) {
      throw badInputError(
        'updateFactoryOption needs the API secret: set input.apiSecret or send the X-Api-Secret header.',
        'input.apiSecret',
      );
    }
    const patienceMs = ctx.siteDocuments.patienceMs;
    // The write takes the next request the key's budget allows; a client is not kept waiting longer than that.
    const expectedAt = ctx.session.plannedCommit(1, false);
    const job = updateOption(ctx.session, {
      apiSecret,
      factoryId: input.factoryId,
      slot: input.slot,
      title: input.title,
      data: input.data,
    });
    // A read of this slot earlier in the operation must not hide the new value.
    const clear = (): unknown => ctx.loaders.factories.option.clear({ id: input.factoryId, slot: input.slot });
    const outcome = expectedAt - Date.now() > patienceMs ? ({ done: false } as const) : await within(job, patienceMs);
    if (outcome.done) {
      clear();
      return {
        message: outcome.value,
        committed: true,
        retryAfterSeconds: null,
        factoryId: input.factoryId,
        slot: input.slot,
      };
    }
    // The budget had no room within the patience: the write stays queued (priority write) and says when it commits.
    job.then(clear, () => undefined);
    const seconds = Math.max(1, Math.ceil((ctx.session.plannedCommit(1) - Date.now()) / 1000));
    return {
      message: `queued: the write is sent with the next request the key's budget allows, in about ${seconds} s`,
      committed: false,
      retryAfterSeconds: seconds,
      factoryId: input.factoryId,
      slot: input.slot,
    };
  }

  /**
   * `UpdateFactoryOptionPayload.option`: the slot as it reads after the write (`GET /factory/options/{id}/{slot}`, made only when selected; the write cleared the loader's entry first).
   */
  @UpstreamCost({ requests: 1 })
  @FieldResolver(() => FactoryOption, {
    nullable: true,
    description: `The slot as it reads after the update; fetched only when selected. ${describeSource(ENDPOINTS.factoryOption)}`,
  })
  option(@Root() payload: UpdateFactoryOptionPayload, @Ctx() ctx: GatewayContext): MaybePromise<FactoryOption | null> {
    return ctx.loaders.factories.option.loadNow({ id: payload.factoryId, slot: payload.slot });
  }
}
