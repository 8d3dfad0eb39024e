import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildSchema as buildSdlSchema,
  findBreakingChanges,
  findDangerousChanges,
  isObjectType,
  isInterfaceType,
  isInputObjectType,
} from 'graphql';
import { emitGatewaySchema, buildGatewaySchema } from '../../src/graph/schema';

const root = join(__dirname, '..', '..');

/**
 * The public contract, the minimum schema this project promises, is kept outside the
 * repository (a `shared/contract/` checkout beside it, as in CI). Where it is checked out,
 * the comparison runs; in a plain clone there is nothing to compare with and the test is
 * left out, without a note. CI always compares (`.ci/run`, `check-contract.mjs`).
 */
const contractPath = join(root, '..', 'shared', 'contract', 'schema.graphql');
const hasContract = existsSync(contractPath);

describe('schema.graphql', () => {
  it('is exactly what the TypeGraphQL classes emit (run `npm run codegen` after changing a class)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'schema-'));
    try {
      const fresh = join(dir, 'schema.graphql');
      await emitGatewaySchema(fresh);
      const committed = await readFile(join(root, 'schema.graphql'), 'utf8');
      expect(await readFile(fresh, 'utf8')).toBe(committed);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  if (hasContract) {
    it('keeps every type, field and argument of the public contract (no breaking or dangerous change)', async () => {
      const contract = buildSdlSchema(await readFile(contractPath, 'utf8'));
      const project = buildSdlSchema(await readFile(join(root, 'schema.graphql'), 'utf8'));
      expect(findBreakingChanges(contract, project)).toEqual([]);
      expect(findDangerousChanges(contract, project)).toEqual([]);
    });
  }

  it('describes every type, field and argument, and names the endpoint of every upstream-backed field', async () => {
    const schema = await buildGatewaySchema();
    const missing: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || ['String', 'Int', 'Float', 'Boolean', 'ID'].includes(type.name)) continue;
      if (!type.description) missing.push(type.name);
      if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          if (!field.description) missing.push(`${type.name}.${field.name}`);
          for (const arg of 'args' in field ? field.args : []) {
            if (!arg.description) missing.push(`${type.name}.${field.name}(${arg.name})`);
          }
        }
      }
    }
    // DateTimeISO comes from graphql-scalars with its own description.
    expect(missing).toEqual([]);
    const factory = schema.getType('Factory');
    if (!isObjectType(factory)) throw new Error('Factory is not an object type');
    expect(factory.getFields().productions?.description).toMatch(
      /GET \/factory\/productions\/\{id\}.*Scopes: factory, factory\.productions.*Premium only/,
    );
    expect(factory.getFields().buyLog?.description).toMatch(/limit 1\.\.50, skip 0\.\.1000/);
    expect(factory.getFields().inventory?.description).toMatch(/Not premium-only/);
  });
});
