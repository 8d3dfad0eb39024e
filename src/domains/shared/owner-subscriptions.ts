/**
 * Subscriptions of a token over several characters (see owners.ts): one naming an object
 * opens with the key owning it ({@link subscribeAsOwner}); one over every character opens
 * once per key, the events merged ({@link subscribeAcrossKeys}). With a single key
 * (`ctx.owners` absent) `open` gets the operation's own context.
 */
import { GatewayError } from '../../errors/gateway-error';
import type { FeedMessage } from '../feeds/feed';
import { mergeMessages } from '../feeds/merge';
import { ownerOfId } from './owners';
import type { KeyPart, OwnedContext, OwnedKind } from './owners';

/**
 * Opens a subscription naming a company (`kind: 'factories'`), a building or a bank
 * account (`'bankAccounts'`: of a company or a building) with the key that owns it (a
 * token over several characters; the owner found by {@link ownerOfId}, an
 * account through its owners' account lists), keeping the subscription scope the
 * transport set; with one key, or over plain HTTP (which `open` refuses), `open` gets the
 * operation's own context at once.
 */
export function subscribeAsOwner<C extends OwnedContext & { subscription?: unknown }, R>(
  ctx: C,
  kind: OwnedKind,
  id: string,
  open: (ctx: C) => Promise<R>,
): Promise<R> {
  if (!ctx.owners || !ctx.subscription) return open(ctx);
  return ownerOfId(ctx, kind, id).then(({ context }) =>
    open(context === ctx ? ctx : { ...context, subscription: ctx.subscription }),
  );
}

/** `error` naming the character whose part of a subscription it ended or interrupted (`extensions.character`, never the key). */
function withCharacter(error: unknown, character: KeyPart['character']): GatewayError {
  const known =
    error instanceof GatewayError
      ? error
      : new GatewayError('INTERNAL_SERVER_ERROR', 'The subscription failed unexpectedly.');
  const { code: _code, ...extensions } = known.extensions;
  return new GatewayError(known.code, known.message, {
    ...extensions,
    character: { id: character.id, name: character.name },
  });
}

/**
 * Opens a subscription over every key of a token over several characters (e.g.
 * `myAuctionChanged`: each character's own auctions): `open` runs once per key with that
 * key's context (its pollers, budget and cooldowns), and the subscriber gets every key's
 * events, each passed through `tag` with its character. A key whose part fails (its first
 * poll's definitive error, its key's subscription limit) or ends later leaves the others
 * running: its error comes as an error event with `extensions.character`. When every
 * part fails to start, rejects with the first key's error; over a connection's limit
 * (`SUBSCRIPTIONS_MAX_PER_CONNECTION`, each key's part counts), rejects as a whole. With
 * one key, or over plain HTTP (which `open` refuses), `open` gets the operation's context.
 */
export async function subscribeAcrossKeys<C extends OwnedContext & { subscription?: unknown }, E>(
  ctx: C,
  open: (ctx: C) => Promise<AsyncIterableIterator<FeedMessage<E>>>,
  tag: (event: E, character: KeyPart['character']) => E,
): Promise<AsyncIterableIterator<FeedMessage<E>>> {
  const owners = ctx.owners;
  if (!owners || !ctx.subscription) return open(ctx);
  const settled = await Promise.allSettled(
    owners.parts.map((part) =>
      open(part.context === ctx ? ctx : { ...(part.context as C), subscription: ctx.subscription }),
    ),
  );
  const opened: Array<{ stream: AsyncIterableIterator<FeedMessage<E>>; part: KeyPart }> = [];
  const failed: Array<{ error: unknown; part: KeyPart }> = [];
  for (const [index, outcome] of settled.entries()) {
    const part = owners.parts[index];
    if (!part) continue;
    if (outcome.status === 'fulfilled') opened.push({ stream: outcome.value, part });
    else failed.push({ error: outcome.reason, part });
  }
  const overConnection = failed.find(
    ({ error }) => error instanceof GatewayError && error.extensions.setting === 'SUBSCRIPTIONS_MAX_PER_CONNECTION',
  );
  const [first] = failed;
  if (first && (opened.length === 0 || overConnection)) {
    await Promise.all(opened.map(({ stream }) => stream.return?.()));
    throw overConnection?.error ?? first.error;
  }
  return mergeMessages(
    opened.map(({ stream, part }) => ({
      stream,
      label: (message: FeedMessage<E>, final: boolean): FeedMessage<E> =>
        message.kind === 'event'
          ? { kind: 'event', event: tag(message.event, part.character) }
          : { kind: 'error', error: withCharacter(message.error, part.character), final },
    })),
    failed.map(({ error, part }): FeedMessage<E> => ({
      kind: 'error',
      error: withCharacter(error, part.character),
      final: false,
    })),
  );
}
