/**
 * `statev-gateway alerts add|list|remove`: alert rules in the vault (see docs/console.md and
 * examples/stock-alert/README.md).
 * Running gateways watch a rule within 1 s of its change, on the pollers their
 * subscriptions use. The command line sends no upstream request: the target URL's form is
 * checked here (https; plain http only to this machine; no private address literal), its
 * addresses by the gateway at delivery; a RENT_OVERDUE key without the scope
 * `building.tenants.activity` is named in the gateway's log at the rule's first poll
 * (the administration graph's `createAlert` checks it at once).
 */
import { parseArgs } from 'node:util';
import { VaultUsageError } from '../vault';
import type { AlertParams, AlertRuleKind, AlertStoreName, Vault } from '../vault';

/** What an alerts command printed and its exit code (as the vault commands'). */
interface AlertCommandResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: 0 | 1 | 2;
}

const KINDS: Readonly<Record<string, AlertRuleKind>> = {
  'stock-below': 'STOCK_BELOW',
  'transaction-added': 'TRANSACTION_ADDED',
  outbid: 'OUTBID',
  'rent-overdue': 'RENT_OVERDUE',
};
const STORES: Readonly<Record<string, AlertStoreName>> = { store: 'STORE', machine: 'MACHINE', counter: 'COUNTER' };

const done = (stdout: string): AlertCommandResult => ({ stdout, stderr: '', exitCode: 0 });
const refused = (stderr: string): AlertCommandResult => ({ stdout: '', stderr: `${stderr}\n`, exitCode: 2 });

/** A number flag: its value, undefined when absent, NaN when not a number. */
function numberFlag(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  return /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : Number.NaN;
}

/** A rule's inputs as one short text. */
function inputs(params: AlertParams): string {
  return Object.entries(params)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${String(value)}`)
    .join(',');
}

/** Rows as aligned columns. */
function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return (
    rows
      .map((row) =>
        row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  '),
      )
      .join('\n') + '\n'
  );
}

/**
 * Runs `alerts add|list|remove` on an open vault.
 *
 * @param words - the command's words (`['alerts', 'remove', 'alr_…']`)
 * @param argv - the whole command line (the flags of `alerts add`)
 * @param allowHosts - `WEBHOOK_ALLOW_HOSTS`
 * @throws VaultUsageError from the vault (exit code 1 for the caller)
 */
export async function alertCommand(
  vault: Vault,
  where: string,
  words: readonly string[],
  argv: readonly string[],
  allowHosts: readonly string[],
): Promise<AlertCommandResult> {
  const [, action, ...rest] = words;
  switch (action) {
    case 'add': {
      let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
      try {
        const text = { type: 'string' } as const;
        values = parseArgs({
          args: [...argv.slice(2)],
          options: {
            character: text,
            kind: text,
            factory: text,
            item: text,
            store: text,
            below: text,
            'bank-account': text,
            'min-amount': text,
            building: text,
            days: text,
            discord: text,
            webhook: text,
          },
          strict: true,
          allowPositionals: false,
        }).values;
      } catch (error) {
        return refused(`${error instanceof Error ? error.message : String(error)}: see statev-gateway alerts --help.`);
      }
      const text = (name: string): string | undefined =>
        typeof values[name] === 'string' ? (values[name] as string) : undefined;
      const kind = KINDS[text('kind') ?? ''];
      if (!kind) return refused(`alerts add needs --kind ${Object.keys(KINDS).join('|')}.`);
      const character = text('character');
      if (!character) return refused('alerts add needs --character <name> (see keys list).');
      const discord = text('discord');
      const webhook = text('webhook');
      if ((discord === undefined) === (webhook === undefined))
        return refused('alerts add needs one target: --discord <url> or --webhook <url>.');
      const store = text('store');
      if (store !== undefined && !STORES[store]) return refused('--store takes store, machine or counter.');
      const params: AlertParams = {
        factoryId: text('factory'),
        item: text('item'),
        store: store === undefined ? undefined : STORES[store],
        threshold: numberFlag(values.below),
        bankAccountId: text('bank-account'),
        minAmount: numberFlag(values['min-amount']),
        buildingId: text('building'),
        days: numberFlag(values.days),
      };
      const added = await vault.addAlert(
        {
          character,
          kind,
          params,
          target: discord !== undefined ? 'DISCORD' : 'WEBHOOK',
          url: discord ?? webhook ?? '',
        },
        allowHosts,
      );
      return done(`${added.id}${added.secret === null ? '' : ` ${added.secret}`}\n`);
    }
    case 'list': {
      const rules = await vault.listAlerts();
      if (rules.length === 0) return done(`No alert rules in ${where}.\n`);
      return done(
        table([
          ['ID', 'CHARACTER', 'KIND', 'INPUTS', 'TARGET', 'URL', 'ADDED', 'STATE'],
          ...rules.map((rule) => [
            rule.id,
            rule.character,
            rule.kind,
            inputs(rule.params) || '-',
            rule.target,
            rule.url,
            rule.createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
            rule.refused === null ? 'active' : `refused (${rule.refused})`,
          ]),
        ]),
      );
    }
    case 'remove': {
      const [id] = rest;
      if (!id || rest.length > 1)
        return refused('alerts remove takes one rule id: statev-gateway alerts remove <id> (see alerts list)');
      await vault.removeAlert(id);
      return done(`Removed alert rule ${id}.\n`);
    }
    default:
      if (action === undefined)
        throw new VaultUsageError('alerts takes add, list or remove: see statev-gateway alerts --help.');
      return refused(
        `Unknown command "statev-gateway ${words.join(' ')}": alerts takes add, list or remove (see statev-gateway alerts --help).`,
      );
  }
}
