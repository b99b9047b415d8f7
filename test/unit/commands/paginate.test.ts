// `pay api GET <list> --paginate` and a list verb, in process, on a terminal and in a pipe, over
// page sequences the contract allows and ones it forbids (issue 25 item 3): JSON by default (never
// one empty line per item), NDJSON with -o ndjson, an empty page that says has_more followed, and
// has_more without a cursor one error naming the service's fault (exit 1) after the items before it.
import { describe, expect, it } from 'vitest';
import { pay, type Recorded } from './harness.js';

const id = (n: number): string => `cus_${String(n).padStart(24, '0')}`;
const item = (n: number) => ({ id: id(n), object: 'customer', first_name: `F${n}`, created_at: '2026-01-01T00:00:00.000Z' });

/** Pages by cursor: none → page 0, `cK` → page K. */
function pages(list: Array<{ ids: number[]; next: string | null; more?: boolean }>) {
  return (req: Recorded) => {
    const cursor = req.query.get('cursor');
    const page = list[cursor === null ? 0 : Number(cursor.slice(1))]!;
    return {
      status: 200,
      body: { object: 'list', data: page.ids.map(item), has_more: page.more ?? page.next !== null, next_cursor: page.next },
    };
  };
}

const WHOLE = pages([
  { ids: [1, 2], next: 'c1' },
  { ids: [], next: 'c2' },
  { ids: [], next: 'c3' },
  { ids: [3], next: null },
]);
const BROKEN = pages([
  { ids: [1, 2], next: 'c1' },
  { ids: [], next: 'c2' },
  { ids: [3], next: null, more: true },
]);

describe('pay api --paginate and list verbs over pages', () => {
  for (const tty of [false, true]) {
    it(`pay api GET customers --paginate prints one JSON array of every item, empty pages followed (${tty ? 'terminal' : 'pipe'})`, async () => {
      const r = await pay(['api', 'GET', 'customers', '--paginate'], { tty, respond: WHOLE });
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
      expect((JSON.parse(r.stdout) as Array<{ id: string }>).map((x) => x.id)).toEqual([id(1), id(2), id(3)]);
      expect(r.requests.map((q) => q.query.get('cursor'))).toEqual([null, 'c1', 'c2', 'c3']);
      const nd = await pay(['api', 'GET', 'customers', '--paginate', '-o', 'ndjson'], { tty, respond: WHOLE });
      expect(nd.code).toBe(0);
      expect(
        nd.stdout
          .trimEnd()
          .split('\n')
          .map((l) => (JSON.parse(l) as { id: string }).id),
      ).toEqual([id(1), id(2), id(3)]);
    });

    it(`has_more without a cursor: exit 1 naming the service's fault, the items before it printed (${tty ? 'terminal' : 'pipe'})`, async () => {
      for (const argv of [
        ['api', 'GET', 'customers', '--paginate', '-o', 'ndjson'],
        ['customers', 'list', '--all', '-o', 'ndjson'],
        ['customers', 'list', '--all', '-o', 'table'],
        ['customers', 'list', '--all', '-o', 'tsv'],
      ]) {
        const r = await pay(argv, { tty, respond: BROKEN });
        const what = argv.join(' ');
        expect({ what, code: r.code }).toEqual({ what, code: 1 });
        for (const n of [1, 2, 3]) expect({ what, printed: r.stdout.includes(id(n)) }).toEqual({ what, printed: true });
        expect(r.stderr).toMatch(/the service broke the list contract: it says has_more: true with no next_cursor/);
        expect(r.stderr).toMatch(/after 3 pages and 3 items/);
      }
    });
  }
});
