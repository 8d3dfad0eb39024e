import { GatewayError } from '../../errors/gateway-error';
import type { GraphQLResolveInfo } from 'graphql';
import type { StaleInfo } from '../../economy';
import { Arg, Args, Ctx, FieldResolver, ID, Info, Int, Query, Resolver, Root } from 'type-graphql';
import type { GatewayContext } from '../gateway-context';
import { ArgumentBounds, boundsText, describeBounds } from '../../field-rules/bounds';
import { ENDPOINTS, MAX_OPTION_SLOTS, describeSource } from '../../upstream/endpoints';
import { MarketOfferBuy, MarketOfferSell } from '../market/market-offer.type';
import { BUY_LOG_PAGE_BOUNDS, BuyLogEntry, BuyLogPageArgs } from './buy-log-entry.type';
import { Counter } from './counter.type';
import { FactoryBankAccount } from './factory-bank-account.type';
import { FactoryOption, SLOT_BOUNDS } from './factory-option.type';
import { Factory } from './factory.type';
import { Inventory } from './inventory.type';
import { Production } from './production.type';
import { Vehicle } from './vehicle.type';
import { UpstreamCost } from '../../field-rules/cost';
import type { MaybePromise } from '../shared/maybe-promise';
import { whenReady } from '../shared/maybe-promise';
import { quotedValue } from '../shared/quoted-value';

/** The companies an access token's factory:<id> grants name, or null when it has none (or the caller sent a key). */
function grantedFactories(ctx: GatewayContext): ReadonlySet<string> | null {
  const ids = (ctx.token?.grants ?? []).flatMap((grant) => (grant.kind === 'factory' ? [grant.factoryId] : []));
  return ids.length > 0 ? new Set(ids) : null;
}

/**
 * Resolves `Query.factories`, `Query.factory(id)` and every upstream-backed field of
 * `Factory`. Each field loads through the operation's loaders, so a company reached
 * twice (aliases, fragments, `factory(id)` next to `factories`) costs one request.
 */
@Resolver(() => Factory)
export class FactoryResolver {
  /** All companies of the character. */
  @UpstreamCost({ requests: 1, list: 'factories', perCharacter: 'each' })
  @Query(() => [Factory], {
    nullable: true,
    description: `Companies owned by the key's character (not those it is only employed at). ${describeSource(ENDPOINTS.factoryList)} isOpen, type and address need factory.details.`,
  })
  factories(@Ctx() ctx: GatewayContext): MaybePromise<Factory[]> {
    const all = ctx.loaders.factories.list.loadNow('all');
    // An access token with factory:<id> grants sees only those companies.
    const granted = grantedFactories(ctx);
    return granted ? whenReady(all, (list) => list.filter((factory) => granted.has(factory.id))) : all;
  }

  /** One company by id, from the same list request; null when not owned. */
  @UpstreamCost({ requests: 1, perCharacter: 'find' })
  @Query(() => Factory, {
    nullable: true,
    description: `One owned company, or null when the character does not own it. Read from the company list: ${describeSource(ENDPOINTS.factoryList)}`,
  })
  async factory(
    @Arg('id', () => ID, { description: 'Company identifier.' }) id: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<Factory | null> {
    const granted = grantedFactories(ctx);
    if (granted && !granted.has(id)) {
      throw new GatewayError(
        'FORBIDDEN',
        `This access token may not read company ${quotedValue(id)}: it needs the grant factory:${quotedValue(id)}.`,
        { requiredGrant: `factory:${quotedValue(id)}` },
      );
    }
    return (await ctx.loaders.factories.list.load('all')).find((factory) => factory.id === id) ?? null;
  }

  /** `Factory.inventory`: the normal store (`GET /factory/inventory/{id}`, once per company and operation); an upstream failure nulls the field. */
  @UpstreamCost({ requests: 1 })
  @FieldResolver(() => Inventory, {
    nullable: true,
    description: `The normal store, without machine stores and counter; an empty store has no items. ${describeSource(ENDPOINTS.factoryInventory)}`,
  })
  inventory(@Root() factory: Factory, @Ctx() ctx: GatewayContext): MaybePromise<Inventory> {
    return ctx.loaders.factories.inventory.loadNow(factory.id);
  }

  /** `Factory.machineInventory`: all machine stores together (`GET /factory/machine/{id}`); an upstream failure nulls the field. */
  @UpstreamCost({ requests: 1 })
  @FieldResolver(() => Inventory, {
    nullable: true,
    description: `The items of all machine stores together; empty when there are none. ${describeSource(ENDPOINTS.factoryMachine)}`,
  })
  machineInventory(@Root() factory: Factory, @Ctx() ctx: GatewayContext): MaybePromise<Inventory> {
    return ctx.loaders.factories.machineInventory.loadNow(factory.id);
  }

  /** `Factory.counter`: the shop shelf with prices (`GET /factory/counter/{id}`); an upstream failure nulls the field. */
  @UpstreamCost({ requests: 1 })
  @FieldResolver(() => Counter, {
    nullable: true,
    description: `The counter (shop shelf) with prices, for end-consumer shops; an empty counter has no items. ${describeSource(ENDPOINTS.factoryCounter)}`,
  })
  counter(@Root() factory: Factory, @Ctx() ctx: GatewayContext): MaybePromise<Counter> {
    return ctx.loaders.factories.counter.loadNow(factory.id);
  }

  /** `Factory.productions`: the company's recipes (`GET /factory/productions/{id}`, premium-only: FORBIDDEN with `premium: true` without it). */
  @UpstreamCost({ requests: 1 })
  @FieldResolver(() => [Production], {
    nullable: true,
    description: `The company's productions (recipes). ${describeSource(ENDPOINTS.factoryProductions)} Without premium: FORBIDDEN with premium: true.`,
  })
  productions(@Root() factory: Factory, @Ctx() ctx: GatewayContext): MaybePromise<Production[]> {
    return ctx.loaders.factories.productions.loadNow(factory.id);
  }

  /** `Factory.bankAccounts`: the company's bank accounts (`GET /factory/bankaccounts/{id}`, premium-only: FORBIDDEN with `premium: true` without it). */
  @UpstreamCost({ requests: 1, list: 'bankAccounts' })
  @FieldResolver(() => [FactoryBankAccount], {
    nullable: true,
    description: `The company's bank accounts. ${describeSource(ENDPOINTS.factoryBankAccounts)} Without premium: FORBIDDEN with premium: true.`,
  })
  bankAccounts(@Root() factory: Factory, @Ctx() ctx: GatewayContext): MaybePromise<FactoryBankAccount[]> {
    return ctx.loaders.factories.bankAccounts.loadNow(factory.id);
  }

  /** `Factory.vehicles`: the vehicles of a car dealership (`GET /factory/vehicles/{id}`); empty for other companies, null on an upstream failure. */
  @UpstreamCost({ requests: 1 })
  @FieldResolver(() => [Vehicle], {
    nullable: true,
    description: `Vehicles whose dealership (carShop) is this company; empty for other companies. ${describeSource(ENDPOINTS.factoryVehicles)}`,
  })
  vehicles(@Root() factory: Factory, @Ctx() ctx: GatewayContext): MaybePromise<Vehicle[]> {
    return ctx.loaders.factories.vehicles.loadNow(factory.id);
  }

  /** `Factory.sellOffers`: the company's sell offers on the market (`GET /factory/marketoffers/sell/{id}`); an upstream failure nulls the field. */
  @UpstreamCost({ requests: 1 })
  @FieldResolver(() => [MarketOfferSell], {
    nullable: true,
    description: `The company's sell offers on the market. ${describeSource(ENDPOINTS.factorySellOffers)}`,
  })
  sellOffers(@Root() factory: Factory, @Ctx() ctx: GatewayContext): MaybePromise<MarketOfferSell[]> {
    return ctx.loaders.market.sellOffers.loadNow(factory.id);
  }

  /** `Factory.buyOffers`: the company's buy offers on the market (`GET /factory/marketoffers/buy/{id}`); an upstream failure nulls the field. */
  @UpstreamCost({ requests: 1 })
  @FieldResolver(() => [MarketOfferBuy], {
    nullable: true,
    description: `The company's buy offers on the market. ${describeSource(ENDPOINTS.factoryBuyOffers)}`,
  })
  buyOffers(@Root() factory: Factory, @Ctx() ctx: GatewayContext): MaybePromise<MarketOfferBuy[]> {
    return ctx.loaders.market.buyOffers.loadNow(factory.id);
  }

  /**
   * `Factory.buyLog(limit, skip)`: one page of the buy log (`GET /factory/buyLog/{id}/{limit}/{skip}`; limit 1..50, skip 0..1000, checked before execution).
   */
  @UpstreamCost({ requests: 1 })
  @ArgumentBounds(BUY_LOG_PAGE_BOUNDS)
  @FieldResolver(() => [BuyLogEntry], {
    nullable: true,
    description: `One page of the company's buy log (meant for workshops). ${describeSource(ENDPOINTS.factoryBuyLog)} ${describeBounds(BUY_LOG_PAGE_BOUNDS)}`,
  })
  buyLog(
    @Root() factory: Factory,
    @Args(() => BuyLogPageArgs) { limit, skip }: BuyLogPageArgs,
    @Ctx() ctx: GatewayContext,
  ): MaybePromise<BuyLogEntry[]> {
    return ctx.loaders.factories.buyLog.loadNow({ id: factory.id, limit, skip });
  }

  /**
   * `Factory.option(slot)`: one option slot (`GET /factory/options/{id}/{slot}`; slot 1..10, checked before execution); null when the slot was never set or was cleared.
   */
  @UpstreamCost({ requests: 1 })
  @ArgumentBounds(SLOT_BOUNDS)
  @FieldResolver(() => FactoryOption, {
    nullable: true,
    description: `One free-text option slot; null when the slot was never set. ${describeSource(ENDPOINTS.factoryOption)} ${describeBounds(SLOT_BOUNDS)}`,
  })
  option(
    @Root() factory: Factory,
    @Arg('slot', () => Int, {
      description: `Slot number, ${boundsText('slot', SLOT_BOUNDS.slot)}. Out of bounds: BAD_USER_INPUT before any upstream request.`,
    })
    slot: number,
    @Ctx() ctx: GatewayContext,
  ): MaybePromise<FactoryOption | null> {
    return ctx.loaders.factories.option.loadNow({ id: factory.id, slot });
  }

  /**
   * `Factory.options`: every set slot, 1..`OPTION_SLOTS` (one request per slot). A failing slot is left out and reported as its own error (path `[…, "options", slot - 1]`);
   * when every slot fails, rejects with the first slot's error (the field is null).
   */
  @UpstreamCost({ requests: 'optionSlots' })
  @FieldResolver(() => [FactoryOption], {
    nullable: true,
    description: `All set option slots, 1..OPTION_SLOTS (default 10, at most ${MAX_OPTION_SLOTS}), in slot order; unset and cleared slots are left out. One request per slot: ${describeSource(ENDPOINTS.factoryOption)} A slot that fails is left out and reported as its own error, with path [..., "options", slot - 1] and extensions.slot; the other slots stay. When every slot fails: null, with the first slot's error at the field's path.`,
  })
  options(
    @Root() factory: Factory,
    @Ctx() ctx: GatewayContext,
    @Info() info: GraphQLResolveInfo,
  ): MaybePromise<FactoryOption[]> {
    return this.optionsOf(factory, ctx, info);
  }

  private optionsOf(factory: Factory, ctx: GatewayContext, info: GraphQLResolveInfo): MaybePromise<FactoryOption[]> {
    const keys = new Array<{ id: string; slot: number }>(ctx.optionSlots);
    for (let slot = 1; slot <= ctx.optionSlots; slot += 1) keys[slot - 1] = { id: factory.id, slot };
    return whenReady(ctx.loaders.factories.option.loadManyNow(keys), (slots) => this.setSlots(slots, ctx, info));
  }

  /** The set slots of `slots` (one per slot number, in order), each failed slot reported as its own error. */
  private setSlots(
    slots: Array<FactoryOption | null | Error>,
    ctx: GatewayContext,
    info: GraphQLResolveInfo,
  ): FactoryOption[] {
    const failures = slots.filter((slot): slot is Error => slot instanceof Error);
    // Nothing to show: the field fails as a whole, with one error (e.g. the missing scope).
    if (failures.length === slots.length && failures[0]) throw failures[0];
    const answered: FactoryOption[] = [];
    let stale: StaleInfo | null = null;
    slots.forEach((slot, index) => {
      if (slot instanceof Error) ctx.itemErrors.report(info, index, slot, { slot: index + 1 });
      else if (slot !== null) {
        answered.push(slot);
        stale ??= ctx.session.staleInfo(slot) ?? null;
      }
    });
    // A list with a stale slot is stale: reported at the list's path in extensions.stale.
    return ctx.session.markStale(answered, stale);
  }
}
