import type { GraphQLSchema } from 'graphql';
import { isScalarType } from 'graphql';

/**
 * Makes the `DateTimeISO` scalar write each `Date` object's text once: its `serialize`
 * keeps the ISO text of every valid `Date` it wrote (weakly, by the object), so the same
 * object read again is not formatted again. Why: mapped answers are shared while the
 * cache keeps them decoded (see `fetchMapped`), so an operation over cached data writes
 * the same `Date` objects as the last one did; formatting them was about 2 % of executing
 * a dashboard. What a field answers is unchanged: the text is `toISOString()`'s, taken
 * from the scalar's own `serialize` the first time, which also refuses what it refuses
 * (an invalid `Date`, a value that is no date), every time.
 *
 * @returns the same schema, its `DateTimeISO` scalar (if any) so changed
 */
export function rememberDateTimeText(schema: GraphQLSchema): GraphQLSchema {
  const scalar = schema.getType('DateTimeISO');
  if (!isScalarType(scalar)) return schema;
  const serialize = scalar.serialize.bind(scalar);
  const texts = new WeakMap<Date, unknown>();
  scalar.serialize = (value: unknown): unknown => {
    if (!(value instanceof Date)) return serialize(value);
    let text = texts.get(value);
    if (text === undefined) {
      text = serialize(value);
      texts.set(value, text);
    }
    return text;
  };
  return schema;
}
