import { Ctx, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import { Building } from '../buildings/building.type';
import { Factory } from '../factories/factory.type';
import { AuctionChange } from '../market/auction.subscription';
import type { GatewayContext } from '../gateway-context';
import { ownerOf as keyOwner } from '../shared/owners';
import { Character, Viewer, ViewerKind } from './viewer.type';

/** The character whose key served `root` (a token over several characters), else the token's only character, or null for a key. */
function ownerOf(ctx: GatewayContext, root: object): Character | null {
  const [character = null] = ctx.token?.characters ?? [];
  const owner = keyOwner(ctx, root) ?? character;
  return owner ? { id: owner.id, name: owner.name } : null;
}

/** `Query.viewer`: the caller, from the operation's context alone (no upstream request). */
@Resolver(() => Viewer)
export class ViewerResolver {
  /** The caller: kind, characters and grants; never a key, secret or token. */
  @Query(() => Viewer, { description: 'The caller: kind, characters and grants. Needs no upstream request.' })
  viewer(@Ctx() ctx: GatewayContext): Viewer {
    const { token } = ctx;
    if (token) {
      return {
        kind: ViewerKind.TOKEN,
        tokenId: token.id,
        expiresAt: token.expiresAt,
        characters: token.characters.map((character) => ({ id: character.id, name: character.name })),
        grants: [...token.grantTexts],
      };
    }
    const keyId = ctx.session.keyId;
    return {
      kind: ViewerKind.KEY,
      tokenId: null,
      expiresAt: null,
      characters: keyId ? [{ id: keyId, name: 'API key' }] : [],
      grants: [],
    };
  }
}

/** `Factory.owner`. */
@Resolver(() => Factory)
export class FactoryOwnerResolver {
  /** The character whose key serves this company, or null for a key caller. */
  @FieldResolver(() => Character, {
    nullable: true,
    description: 'The character whose key serves this company; null when the caller sent a StateV key.',
  })
  owner(@Root() factory: Factory, @Ctx() ctx: GatewayContext): Character | null {
    return ownerOf(ctx, factory);
  }
}

/** `Building.owner`. */
@Resolver(() => Building)
export class BuildingOwnerResolver {
  /** The character whose key serves this building, or null for a key caller. */
  @FieldResolver(() => Character, {
    nullable: true,
    description: 'The character whose key serves this building; null when the caller sent a StateV key.',
  })
  owner(@Root() building: Building, @Ctx() ctx: GatewayContext): Character | null {
    return ownerOf(ctx, building);
  }
}

/** `AuctionChange.owner`. */
@Resolver(() => AuctionChange)
export class AuctionChangeOwnerResolver {
  /** The character whose auction changed (the part of a token over several characters that saw it), or null for a key caller. */
  @FieldResolver(() => Character, {
    nullable: true,
    description:
      'The character whose auction changed (an access token over several characters watches each of them); null when the caller sent a StateV key.',
  })
  owner(@Root() change: AuctionChange, @Ctx() ctx: GatewayContext): Character | null {
    const owner = change.character ?? ctx.token?.characters[0] ?? null;
    return owner ? { id: owner.id, name: owner.name } : null;
  }
}
