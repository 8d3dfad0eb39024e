/**
 * Writes `schema.graphql` from the TypeGraphQL classes (part of `npm run codegen`).
 * A test fails when the committed file differs from what the classes emit.
 */
import 'reflect-metadata';
import { resolve } from 'node:path';
import { emitGatewaySchema } from '../src/graph/schema';

const target = resolve(__dirname, '..', 'schema.graphql');
emitGatewaySchema(target).then(
  () => console.log(`schema written to ${target}`),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
