import { GraphQLError, responsePathAsArray } from 'graphql';
import { errorOver } from '../../errors/gateway-error';
import type { GraphQLFormattedError, GraphQLResolveInfo } from 'graphql';

/**
 * Errors of single items of a list field that was answered without them: a field that
 * fans out into several upstream requests (`Factory.options`: one per slot) returns the
 * items it has and reports each missing one as its own error, with a path into the
 * list (the item's index in the full, unfiltered order) and extensions naming it.
 *
 * Why not GraphQL's own null items: the contract keeps list items non-null
 * (`[FactoryOption!]`), so one null item would null the whole list. These errors are
 * added to the result by the `item-errors` step of the result phase (src/pipeline/result-steps.ts), formatted like every other error.
 *
 * When to use: one per operation, in the context (`ctx.itemErrors`).
 */
export class ListItemErrors {
  private readonly reported: GraphQLError[] = [];

  /** How many item errors the operation reported. */
  get size(): number {
    return this.reported.length;
  }

  /**
   * Reports that the item at `index` of the list field being resolved (`info`) is
   * missing because of `error`; `extensions` are added (e.g. `{slot: 3}`).
   */
  report(info: GraphQLResolveInfo, index: number, error: Error, extensions: Record<string, unknown> = {}): void {
    const path = [...responsePathAsArray(info.path), index];
    const original = error instanceof GraphQLError ? error : undefined;
    this.reported.push(
      errorOver(error.message, {
        nodes: info.fieldNodes,
        path,
        originalError: error,
        extensions: { ...(original?.extensions ?? {}), ...extensions },
      }),
    );
  }

  /**
   * Reports that the list field being resolved (`info`) is answered without a part of its
   * items because of `error` (a key of a token over several characters): the error's path
   * is the field's own; `extensions` are added (e.g. `{character}`).
   */
  reportField(info: GraphQLResolveInfo, error: Error, extensions: Record<string, unknown> = {}): void {
    const original = error instanceof GraphQLError ? error : undefined;
    this.reported.push(
      errorOver(error.message, {
        nodes: info.fieldNodes,
        path: responsePathAsArray(info.path),
        originalError: error,
        extensions: { ...(original?.extensions ?? {}), ...extensions },
      }),
    );
  }

  /** The errors, formatted with the server's `formatError` (which masks unexpected ones). */
  formatted(
    format: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError,
  ): GraphQLFormattedError[] {
    return this.reported.map((error) => {
      const { http: _http, ...extensions } = error.extensions;
      return format({ ...error.toJSON(), extensions }, error.originalError ?? error);
    });
  }
}
