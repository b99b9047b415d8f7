// "Prints nothing for a non-empty answer" is a bug a test finds, for every command that lists
// (issue 24 item 5, issue 25 item 3). Against a real emulator seeded with a few objects of each
// kind, every list verb of the tree (read from the group specs, so a new one is covered when it is
// added) and `pay api GET <its path> --paginate` run in every output format they take (table, tsv,
// csv, json, ndjson, --jq); stdout must hold every item the API lists (its id), with no empty
// line, exit 0 and nothing on stderr.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allGroups } from '../../src/commands/groups.js';
import { account, enabledCustomer, startWorld, type Obj, type World } from './groups/helpers.js';

let w: World;

/** Every list verb of the tree: `pay <group> <verb>` and the API path it lists. */
const LISTS = allGroups.flatMap((g) => g.verbs.filter((v) => v.kind === 'list').map((v) => ({ args: [g.name, v.name], path: v.path })));

/** What identifies an item in printed output: its id (every stored object has one; a feature its key). */
const keyOf = (item: Obj): string => String(item.id ?? item.key ?? JSON.stringify(item));

const LIST_FORMATS: string[][] = [['-o', 'table'], ['-o', 'tsv'], ['-o', 'csv'], ['-o', 'json'], ['-o', 'ndjson'], ['--jq', '.[]'], []];
const API_FORMATS: string[][] = [[], ['-o', 'json'], ['-o', 'ndjson'], ['--jq', '.[]'], ['--jq', '.[] | .id // .key']];

beforeAll(async () => {
  w = await startWorld();
  // A few objects of each kind: customers, accounts (two currencies), a collection and transfers
  // (transactions), an external account, a card, a wallet and a paid payment link, an FX trade,
  // and the webhook events all of them made.
  const cus = await enabledCustomer(w);
  const [a, b, e] = await Promise.all([account(w, cus), account(w, cus), account(w, cus, 'EUR')]);
  await w.api('POST', 'collections', { account_id: a, amount: '500.00', currency: 'USD', method: 'card' });
  await w.settle();
  await w.api('POST', 'transfers', { source_account_id: a, destination_id: b, amount: '10.00', currency: 'USD' });
  await w.api('POST', 'external-accounts', {
    customer_id: cus,
    account_holder_name: 'Ada Lovelace',
    bank_name: 'Example Bank',
    account_number: '12345678',
    country: 'US',
    currency: 'USD',
  });
  await w.api('POST', 'cards', { customer_id: cus, account_id: a, type: 'virtual' });
  const wal = (await w.api('POST', 'wallets', { customer_id: cus, asset: 'USDC', network: 'polygon' })).id as string;
  const link = await w.api('POST', 'payment-links', { wallet_id: wal, amount: '12.5', asset: 'USDC' });
  expect((await fetch(`${w.emu.url}/__emulator/payment-links/${link.id as string}/pay`, { method: 'POST' })).status).toBe(200);
  const q = await w.api('POST', 'fx/quotes', { source_currency: 'USD', target_currency: 'EUR', source_amount: '100.00' });
  await w.api('POST', 'fx/trades', { quote_id: q.id, source_account_id: a, target_account_id: e });
  await w.settle();
}, 120_000);
afterAll(() => w?.stop());

/** The items the API lists at `path` (a few: one page holds them all). */
async function itemsAt(path: string): Promise<Obj[]> {
  const page = await w.api('GET', `${path}?limit=100`);
  expect(page.has_more).toBe(false);
  return page.data as Obj[];
}

function checkPrinted(what: string, r: { code: number | null; stdout: string; stderr: string }, items: Obj[]): void {
  expect({ what, code: r.code, stderr: r.stderr }).toEqual({ what, code: 0, stderr: '' });
  const missing = items.map(keyOf).filter((k) => !r.stdout.includes(k));
  expect({ what, missing }).toEqual({ what, missing: [] });
  const lines = r.stdout.replace(/\r?\n$/, '').split(/\r?\n/);
  expect({ what, emptyLines: lines.filter((l) => l.trim() === '').length }).toEqual({ what, emptyLines: 0 });
}

describe('every list prints its items in every format', () => {
  it('the tree has the list verbs this test expects to walk, and every one lists something here', async () => {
    expect(LISTS.length).toBeGreaterThanOrEqual(12);
    for (const l of LISTS)
      expect({ list: l.args.join(' '), items: (await itemsAt(l.path)).length > 0 }).toEqual({ list: l.args.join(' '), items: true });
  });

  it.each(LISTS.map((l) => [l.args.join(' '), l] as const))('pay %s --all, in every format', async (_name, l) => {
    const items = await itemsAt(l.path);
    await Promise.all(
      LIST_FORMATS.map(async (fmt) => {
        const args = [...l.args, '--all', ...fmt];
        checkPrinted(`pay ${args.join(' ')}`, await w.pay(args), items);
      }),
    );
  });

  it.each(LISTS.map((l) => [l.path, l] as const))(
    'pay api GET %s --paginate, in every format: JSON, never empty lines',
    async (_path, l) => {
      const items = await itemsAt(l.path);
      await Promise.all(
        API_FORMATS.map(async (fmt) => {
          const args = ['api', 'GET', l.path, '--paginate', ...fmt];
          const r = await w.pay(args);
          checkPrinted(`pay ${args.join(' ')}`, r, items);
          // The default (no -o) and -o json are one JSON array of every item, exactly as listed.
          if (fmt.length === 0 || fmt[1] === 'json') expect((JSON.parse(r.stdout) as Obj[]).map(keyOf)).toEqual(items.map(keyOf));
          if (fmt[1] === 'ndjson')
            expect(
              r.stdout
                .trimEnd()
                .split('\n')
                .map((line) => keyOf(JSON.parse(line) as Obj)),
            ).toEqual(items.map(keyOf));
        }),
      );
    },
  );
});
