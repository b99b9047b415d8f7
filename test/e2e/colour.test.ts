// Colour in the built pay, whose modules get src/scripts/chalk.mjs for chalk (chalk loaded only
// when a colour is asked for): FORCE_COLOR colours a table's header and a get view's labels as
// chalk does; without it (a pipe) or with NO_COLOR, nothing but the text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customer, ok, startWorld, type World } from './groups/helpers.js';

let w: World;
let id: string;
beforeAll(async () => {
  w = await startWorld();
  id = await customer(w);
});
afterAll(() => w?.stop());

describe('colour', () => {
  it('FORCE_COLOR colours the header of a table and the labels of a get view', async () => {
    const table = ok(await w.pay(['customers', 'list', '-o', 'table'], { env: { FORCE_COLOR: '1', COLUMNS: '200' } }));
    expect(table.split('\n')[0]).toMatch(/^\x1b\[1mID\x1b\[22m/);
    const view = ok(await w.pay(['customers', 'get', id, '-o', 'table'], { env: { FORCE_COLOR: '1' } }));
    expect(view.split('\n')[0]).toMatch(/^\x1b\[2mid\x1b\[22m +cus_/);
  });

  it('without FORCE_COLOR (a pipe), or with NO_COLOR, the same text without a colour', async () => {
    const coloured = ok(await w.pay(['customers', 'get', id, '-o', 'table'], { env: { FORCE_COLOR: '1' } }));
    const plain = ok(await w.pay(['customers', 'get', id, '-o', 'table']));
    expect(plain).not.toContain('\x1b');
    expect(plain).toBe(coloured.replace(/\x1b\[\d+m/g, ''));
    expect(ok(await w.pay(['customers', 'get', id, '-o', 'table'], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } }))).toBe(plain);
  });
});
