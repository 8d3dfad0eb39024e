/**
 * Grants checked against the public schema when a token is created: `read:<Type>.<field>`
 * must name a field the schema has (not an introspection type such as `__Schema`), so a
 * typo or a made-up field is refused instead of silently granting nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, isInterfaceType, isObjectType } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { projectRoot } from '../project-root';
import type { Grant } from './grants';

/** The schema.graphql at the package root, parsed once (null when the file is missing). */
let published: GraphQLSchema | null | undefined;

/**
 * The public schema as emitted at the package root (`schema.graphql`, shipped in the npm
 * package): what the command line checks grants against.
 *
 * @returns null when the file is not there (grants are then checked for their form only)
 */
export function publishedSchema(): GraphQLSchema | null {
  if (published === undefined) {
    const path = join(projectRoot(), 'schema.graphql');
    published = existsSync(path) ? buildSchema(readFileSync(path, 'utf8')) : null;
  }
  return published;
}

/**
 * What is wrong with a grant for this schema, or null: a `read:<Type>.<field>` grant needs
 * an object or interface type of that name (never an introspection type) with that field.
 */
export function grantSchemaProblem(grant: Grant, text: string, schema: GraphQLSchema): string | null {
  if (grant.kind !== 'read-field') return null;
  const type = grant.type.startsWith('__') ? undefined : schema.getType(grant.type);
  if (!type || !(isObjectType(type) || isInterfaceType(type)))
    return `The grant "${text}" names the type ${grant.type}, which the public schema does not have (see schema.graphql).`;
  if (!Object.hasOwn(type.getFields(), grant.field))
    return `The grant "${text}" names the field ${grant.type}.${grant.field}, which the public schema does not have (see schema.graphql).`;
  return null;
}
