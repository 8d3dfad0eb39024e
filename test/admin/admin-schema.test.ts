/**
 * schema.admin.graphql: exactly what the administration graph's classes emit, described
 * everywhere, and a compatible superset of the contract's next/admin.graphql where that
 * contract is checked out beside the project (as in CI).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildSchema as buildSdlSchema,
  findBreakingChanges,
  findDangerousChanges,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
} from 'graphql';
import { buildAdminSchema, emitAdminSchema } from '../../src/admin/admin-schema';

const root = join(__dirname, '..', '..');
const contractPath = join(root, '..', 'shared', 'contract', 'next', 'admin.graphql');

describe('schema.admin.graphql', () => {
  it('is exactly what the classes emit (run `npm run codegen` after changing one)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'admin-schema-'));
    try {
      const fresh = join(dir, 'schema.admin.graphql');
      await emitAdminSchema(fresh);
      expect(await readFile(fresh, 'utf8')).toBe(await readFile(join(root, 'schema.admin.graphql'), 'utf8'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  if (existsSync(contractPath)) {
    it('keeps every type, field and argument of next/admin.graphql (no breaking or dangerous change)', async () => {
      const contract = buildSdlSchema(await readFile(contractPath, 'utf8'));
      const project = buildSdlSchema(await readFile(join(root, 'schema.admin.graphql'), 'utf8'));
      expect(findBreakingChanges(contract, project)).toEqual([]);
      expect(findDangerousChanges(contract, project)).toEqual([]);
    });
  }

  it('describes every type, field and argument, and has no field that could return a key or secret', async () => {
    const schema = await buildAdminSchema();
    const missing: string[] = [];
    const fieldNames: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || ['String', 'Int', 'Float', 'Boolean', 'ID', 'DateTimeISO'].includes(type.name))
        continue;
      if (!type.description) missing.push(type.name);
      if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          if (!field.description) missing.push(`${type.name}.${field.name}`);
          if (
            isObjectType(type) &&
            type !== schema.getQueryType() &&
            type !== schema.getMutationType() &&
            /String/.test(String(field.type))
          )
            fieldNames.push(`${type.name}.${field.name}`);
          for (const arg of 'args' in field ? field.args : [])
            if (!arg.description) missing.push(`${type.name}.${field.name}(${arg.name})`);
        }
      }
    }
    expect(missing).toEqual([]);
    // String output fields: no key or secret; a token only in CreatedAccessToken and EditorToken (the answers that make one), a signing secret only on Alert (createAlert's answer).
    expect(fieldNames.filter((name) => /key|secret|token/i.test(name.split('.')[1] ?? ''))).toEqual([
      'Alert.signingSecret',
      'CreatedAccessToken.token',
      'EditorToken.token',
    ]);
  });
});
