import { Arg, Ctx, FieldResolver, ID, Int, Query, Resolver, Root } from 'type-graphql';
import type { GatewayContext } from '../../context';
import { BOUNDS, rangeText } from '../../graph/bounds';
import { ENDPOINTS, describeSource } from '../../upstream/endpoints';
import { MarketOfferBuy, MarketOfferSell } from '../market/market-offer.type';
import { BuyLogEntry } from './buy-log-entry.type';
import { Counter } from './counter.type';
import { FactoryBankAccount } from './factory-bank-account.type';
import { FactoryOption } from './factory-option.type';
import { Factory } from './factory.type';
import { Inventory } from './inventory.type';
import { Production } from './production.type';
import { Vehicle } from './vehicle.type';

/** All ten option slots, in order. */
const ALL_SLOTS = Array.from({ length: BOUNDS.slot.max - BOUNDS.slot.min + 1 }, (_, i) => BOUNDS.slot.min + i);

/**
 * Resolves `Query.factories`, `Query.factory(id)` and every upstream-backed field of
 * `Factory`. Each field loads through the operation's loaders, so a company reached
 * twice (aliases, fragments, `factory(id)` next to `factories`) costs one request.
 */
@Resolver(() => Factory)
export class FactoryResolver {
  /** All companies of the character. */
  @Query(() => [Factory], {
    nullable: true,
    description: `Companies owned by the key's character (not those it is only employed at). ${describeSource(ENDPOINTS.factoryList)} isOpen, type and address need factory.details.`,
  })
  factories(@Ctx() ctx: GatewayContext): Promise<Factory[]> {
    return ctx.loaders.factories.list.load('all');
  }

  /** One company by id, from the same list request; null when not owned. */
  @Query(() => Factory, {
    nullable: true,
    description: `One owned company, or null when the character does not own it. Read from the company list: ${describeSource(ENDPOINTS.factoryList)}`,
  })
  async factory(
    @Arg('id', () => ID, { description: 'Company identifier.' }) id: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<Factory | null> {
    const all = await ctx.loaders.factories.list.load('all');
    return all.find((factory) => factory.id === id) ?? null;
  }

  @FieldResolver(() => Inventory, {
    nullable: true,
    description: `The normal store, without machine stores and counter; an empty store has no items. ${describeSource(ENDPOINTS.factoryInventory)}`,
  })
  inventory(@Root() factory: Factory, @Ctx() ctx: GatewayContext): Promise<Inventory> {
    return ctx.loaders.factories.inventory.load(factory.id);
  }

  @FieldResolver(() => Inventory, {
    nullable: true,
    description: `The items of all machine stores together; empty when there are none. ${describeSource(ENDPOINTS.factoryMachine)}`,
  })
  machineInventory(@Root() factory: Factory, @Ctx() ctx: GatewayContext): Promise<Inventory> {
    return ctx.loaders.factories.machineInventory.load(factory.id);
  }

  @FieldResolver(() => Counter, {
    nullable: true,
    description: `The counter (shop shelf) with prices, for end-consumer shops; an empty counter has no items. ${describeSource(ENDPOINTS.factoryCounter)}`,
  })
  counter(@Root() factory: Factory, @Ctx() ctx: GatewayContext): Promise<Counter> {
    return ctx.loaders.factories.counter.load(factory.id);
  }

  @FieldResolver(() => [Production], {
    nullable: true,
    description: `The company's productions (recipes). ${describeSource(ENDPOINTS.factoryProductions)} Without premium: FORBIDDEN with premium: true.`,
  })
  productions(@Root() factory: Factory, @Ctx() ctx: GatewayContext): Promise<Production[]> {
    return ctx.loaders.factories.productions.load(factory.id);
  }

  @FieldResolver(() => [FactoryBankAccount], {
    nullable: true,
    description: `The company's bank accounts. ${describeSource(ENDPOINTS.factoryBankAccounts)} Without premium: FORBIDDEN with premium: true.`,
  })
  bankAccounts(@Root() factory: Factory, @Ctx() ctx: GatewayContext): Promise<FactoryBankAccount[]> {
    return ctx.loaders.factories.bankAccounts.load(factory.id);
  }

  @FieldResolver(() => [Vehicle], {
    nullable: true,
    description: `Vehicles whose dealership (carShop) is this company; empty for other companies. ${describeSource(ENDPOINTS.factoryVehicles)}`,
  })
  vehicles(@Root() factory: Factory, @Ctx() ctx: GatewayContext): Promise<Vehicle[]> {
    return ctx.loaders.factories.vehicles.load(factory.id);
  }

  @FieldResolver(() => [MarketOfferSell], {
    nullable: true,
    description: `The company's sell offers on the market. ${describeSource(ENDPOINTS.factorySellOffers)}`,
  })
  sellOffers(@Root() factory: Factory, @Ctx() ctx: GatewayContext): Promise<MarketOfferSell[]> {
    return ctx.loaders.market.sellOffers.load(factory.id);
  }

  @FieldResolver(() => [MarketOfferBuy], {
    nullable: true,
    description: `The company's buy offers on the market. ${describeSource(ENDPOINTS.factoryBuyOffers)}`,
  })
  buyOffers(@Root() factory: Factory, @Ctx() ctx: GatewayContext): Promise<MarketOfferBuy[]> {
    return ctx.loaders.market.buyOffers.load(factory.id);
  }

  @FieldResolver(() => [BuyLogEntry], {
    nullable: true,
    description: `One page of the company's buy log (meant for workshops). ${describeSource(ENDPOINTS.factoryBuyLog)} Bounds: ${rangeText('limit', BOUNDS.buyLogLimit)}, ${rangeText('skip', BOUNDS.buyLogSkip)}.`,
  })
  buyLog(
    @Root() factory: Factory,
    @Arg('limit', () => Int, { defaultValue: 50, description: `Page size; ${rangeText('limit', BOUNDS.buyLogLimit)}, default 50. Out of bounds: BAD_USER_INPUT before any upstream request.` }) limit: number,
    @Arg('skip', () => Int, { defaultValue: 0, description: `Entries to skip; ${rangeText('skip', BOUNDS.buyLogSkip)}, default 0. Out of bounds: BAD_USER_INPUT before any upstream request.` }) skip: number,
    @Ctx() ctx: GatewayContext,
  ): Promise<BuyLogEntry[]> {
    return ctx.loaders.factories.buyLog.load({ id: factory.id, limit, skip });
  }

  @FieldResolver(() => FactoryOption, {
    nullable: true,
    description: `One free-text option slot; null when the slot was never set. ${describeSource(ENDPOINTS.factoryOption)} Bounds: ${rangeText('slot', BOUNDS.slot)}.`,
  })
  option(
    @Root() factory: Factory,
    @Arg('slot', () => Int, { description: `Slot number, ${rangeText('slot', BOUNDS.slot)}. Out of bounds: BAD_USER_INPUT before any upstream request.` }) slot: number,
    @Ctx() ctx: GatewayContext,
  ): Promise<FactoryOption | null> {
    return ctx.loaders.factories.option.load({ id: factory.id, slot });
  }

  @FieldResolver(() => [FactoryOption], {
    nullable: true,
    description: `All set option slots, 1..10, in slot order; unset slots are left out. Ten requests: ${describeSource(ENDPOINTS.factoryOption)}`,
  })
  async options(@Root() factory: Factory, @Ctx() ctx: GatewayContext): Promise<FactoryOption[]> {
    const slots = await ctx.loaders.factories.option.loadMany(ALL_SLOTS.map((slot) => ({ id: factory.id, slot })));
    const failure = slots.find((slot): slot is Error => slot instanceof Error);
    if (failure) throw failure;
    return slots.filter((slot): slot is FactoryOption => slot !== null && !(slot instanceof Error));
  }
}
