// The emulator's clock moves forward at most 10 years per advance and a century in all: past that
// a time would be no RFC 3339 date (year 10000) and date checks would refuse what they should
// take. A refused advance changes nothing; a reset starts the clock again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, client, customerBody, start, type Emulator } from './helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await start();
});
afterAll(() => emu.stop());

const YEAR_S = 365.25 * 86_400;

describe('clock advance bounds', () => {
  it('10 years per advance (3652d and 87600h alike), a century in all; the refusal changes nothing; reset starts again', async () => {
    expect((await admin(emu, 'POST', 'clock/advance', { seconds: 3652 * 86_400 })).status).toBe(200);
    expect((await admin(emu, 'POST', 'clock/advance', { seconds: 87_600 * 3_600 })).status).toBe(200);
    expect((await admin(emu, 'POST', 'clock/advance', { seconds: 10 * YEAR_S + 86_400 })).status).toBe(422);
    for (let i = 0; i < 8; i++) expect((await admin(emu, 'POST', 'clock/advance', { seconds: 10 * YEAR_S })).status).toBe(200);
    const before = (await admin(emu, 'GET', 'clock')).body as { now: string; offset_ms: number };
    const refused = await admin(emu, 'POST', 'clock/advance', { seconds: 10 * YEAR_S });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'invalid_state', detail: expect.stringMatching(/at most 36525 days ahead in all/) });
    const after = (await admin(emu, 'GET', 'clock')).body as { now: string; offset_ms: number };
    expect(after.offset_ms).toBe(before.offset_ms);
    expect(after.now).toMatch(/^2\d{3}-/);
    // Still a working service a century on: a customer born in the past is taken.
    expect((await client(emu)('POST', 'customers', customerBody())).status).toBe(201);
    expect((await admin(emu, 'POST', 'reset')).status).toBe(200);
    expect(((await admin(emu, 'GET', 'clock')).body as { offset_ms: number }).offset_ms).toBe(0);
  });
});
