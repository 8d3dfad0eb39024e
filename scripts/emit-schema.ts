/**
 * Writes `schema.graphql` and `schema.admin.graphql` (the administration graph) from the
 * TypeGraphQL classes (part of `npm run codegen`). A test fails when a committed file
 * differs from what the classes emit.
 */
import 'reflect-metadata';
import { resolve } from 'node:path';
import { emitAdminSchema } from '../src/admin/admin-schema';
import { emitGatewaySchema } from '../src/graph/schema';

const target = resolve(__dirname, '..', 'schema.graphql');
const adminTarget = resolve(__dirname, '..', 'schema.admin.graphql');
emitGatewaySchema(target)
  .then(() => emitAdminSchema(adminTarget))
  .then(
    () => console.log(`schemas written to ${target} and ${adminTarget}`),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
