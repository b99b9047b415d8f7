// Webhook events: stored for every state change, delivered signed (Standard Webhooks) to the
// configured URL of their mode only, retried after a failure, failed after the last retry, resendable.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verify } from '../../src/shared/signature.js';
import { admin, client, customerBody, start, until, type Api, type Emulator } from './helpers.js';

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

let emu: Emulator;
let api: Api;
let receiver: Server;
let receiverUrl: string;
const deliveries: Delivery[] = [];
/** Status codes the receiver answers with, in order; then 204. */
const script: number[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, body });
      res.writeHead(script.shift() ?? 204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  emu = await start({ settleAfterMs: 1000, webhookRetryScale: 0.001 });
  api = client(emu);
});
afterAll(async () => {
  await emu.stop();
  await new Promise((r) => receiver.close(r));
});

const event = async (id: string) => (await api('GET', `webhooks/events/${id}`)).body;

describe('webhooks', () => {
  it('without a URL, events are recorded and stay pending', async () => {
    const c = await api('POST', 'customers', customerBody(1));
    const list = await api('GET', 'webhooks/events?type=customer.created');
    const e = list.body.data[0];
    expect(e).toMatchObject({ object: 'event', type: 'customer.created', livemode: false, data: { object: c.body } });
    expect(e.delivery).toMatchObject({ status: 'pending', attempts: 0, next_attempt_at: null });
    expect((await event(e.id)).attempts).toEqual([]);
    expect(deliveries).toHaveLength(0);
  });

  it('setting a URL delivers the events still pending (made while none was set), and only those', async () => {
    const pending = (await api('GET', 'webhooks/events?status=pending')).body.data.map((x: { id: string }) => x.id);
    expect(pending).toHaveLength(1);
    expect((await admin(emu, 'POST', 'webhook-url', { url: receiverUrl })).body.url).toBe(receiverUrl);
    await until('a delivery', () => deliveries.length >= 1);
    expect(deliveries.map((d) => JSON.parse(d.body).id)).toEqual(pending);
    await until('the pending event delivered', async () => (await event(pending[0])).delivery.status === 'delivered');
    // Setting it again sends nothing more: nothing is pending.
    expect((await admin(emu, 'POST', 'webhook-url', { url: receiverUrl })).status).toBe(200);
    expect((await api('GET', 'webhooks/events?status=pending')).body.data).toEqual([]);
    expect(deliveries).toHaveLength(1);
    deliveries.length = 0;
  });

  it('delivers each event to the URL, signed with the mode secret (verifiable with src/shared/signature.ts)', async () => {
    const c = await api('POST', 'customers', customerBody(2));
    await api('PATCH', `customers/${c.body.id}`, { first_name: 'Augusta' });
    await until('two deliveries', () => deliveries.length >= 2);
    const [created, updated] = deliveries.map((d) => ({ ...d, json: JSON.parse(d.body) }));
    expect(created!.json).toMatchObject({ type: 'customer.created', data: { object: { id: c.body.id } } });
    expect(Object.keys(created!.json).sort()).toEqual(['created_at', 'data', 'id', 'type']);
    expect(updated!.json).toMatchObject({ type: 'customer.updated', data: { object: { first_name: 'Augusta' } } });
    for (const d of deliveries) {
      expect(verify(emu.webhookSecrets.sandbox, d.headers, d.body)).toMatchObject({ ok: true, id: JSON.parse(d.body).id });
      expect(verify(emu.webhookSecrets.live, d.headers, d.body).ok).toBe(false);
      expect(d.headers['webhook-id']).toBe(JSON.parse(d.body).id);
      expect(d.headers['content-type']).toBe('application/json');
    }
    const e = await until('the event delivered', async () => {
      const x = await event(created!.json.id);
      return x.delivery.status === 'delivered' ? x : undefined;
    });
    expect(e.delivery).toMatchObject({ attempts: 1, last_response_code: 204, next_attempt_at: null });
    expect(e.attempts).toHaveLength(1);
    expect(e.attempts[0]).toMatchObject({ response_code: 204, error: null, url: receiverUrl });
    expect(e.attempts[0].id).toMatch(/^whd_[0-9a-z]{24}$/);
  });

  it('each mode has its own URL: a Live event never goes to the Sandbox URL; the Live URL gets it, signed with the Live secret', async () => {
    deliveries.length = 0;
    const live = client(emu, { key: emu.keys.live.secret });
    const c = await live('POST', 'customers', customerBody(3));
    const pending = async () =>
      (await live('GET', 'webhooks/events?type=customer.created')).body.data.find(
        (e: { data: { object: { id: string } } }) => e.data.object.id === c.body.id,
      );
    // The Sandbox URL is set (above); the Live one is not: the Live event stays pending, sent nowhere.
    expect((await admin(emu, 'GET', 'webhook-url')).body).toEqual({ mode: 'sandbox', url: receiverUrl });
    expect((await admin(emu, 'GET', 'webhook-url?mode=live')).body).toEqual({ mode: 'live', url: null });
    expect((await pending()).delivery).toMatchObject({ status: 'pending', attempts: 0, next_attempt_at: null });
    // A Sandbox event made after it is delivered (to the Sandbox URL) while the Live one still waits.
    await api('POST', 'customers', customerBody(7));
    await until('a delivery', () => deliveries.length >= 1);
    expect(deliveries.map((d) => JSON.parse(d.body).data.object.id)).not.toContain(c.body.id);
    expect((await pending()).delivery.attempts).toBe(0);
    deliveries.length = 0;
    // Setting the Live URL delivers it there, signed with the Live secret; the Sandbox URL stays.
    const liveUrl = `${receiverUrl}?live`;
    expect((await admin(emu, 'POST', 'webhook-url?mode=live', { url: liveUrl })).body).toEqual({ mode: 'live', url: liveUrl });
    await until('a delivery at the Live URL', () => deliveries.length >= 1);
    expect(JSON.parse(deliveries[0]!.body)).toMatchObject({ type: 'customer.created', data: { object: { id: c.body.id } } });
    expect(verify(emu.webhookSecrets.live, deliveries[0]!.headers, deliveries[0]!.body).ok).toBe(true);
    expect(verify(emu.webhookSecrets.sandbox, deliveries[0]!.headers, deliveries[0]!.body).ok).toBe(false);
    const e = await until('the Live event delivered', async () =>
      (await pending()).delivery.status === 'delivered' ? await pending() : undefined,
    );
    expect((await live('GET', `webhooks/events/${e.id}`)).body.attempts[0]).toMatchObject({ url: liveUrl });
    expect((await admin(emu, 'GET', 'webhook-url')).body.url).toBe(receiverUrl);
    // A resend of a Live event goes to the Live URL; with the Live URL cleared it stays pending.
    expect((await admin(emu, 'POST', 'webhook-url?mode=live', { url: null })).body).toEqual({ mode: 'live', url: null });
    const resent = await live('POST', `webhooks/events/${e.id}/resend`);
    expect(resent.body.delivery).toMatchObject({ status: 'pending', next_attempt_at: null });
    expect((await admin(emu, 'GET', 'webhook-url?mode=nope')).status).toBe(422);
    deliveries.length = 0;
  });

  it('retries after a 500 from the receiver, then delivers', async () => {
    deliveries.length = 0;
    script.push(500);
    const c = await api('POST', 'customers', customerBody(4));
    await until('two deliveries', () => deliveries.length >= 2);
    expect(deliveries.map((d) => JSON.parse(d.body).id)).toEqual([JSON.parse(deliveries[0]!.body).id, JSON.parse(deliveries[0]!.body).id]);
    const id = JSON.parse(deliveries[0]!.body).id;
    const e = await until('the event delivered', async () => {
      const x = await event(id);
      return x.delivery.status === 'delivered' ? x : undefined;
    });
    expect(e.delivery.attempts).toBe(2);
    expect(e.attempts.map((a: { response_code: number }) => a.response_code)).toEqual([500, 204]);
    expect(e.data.object.id).toBe(c.body.id);
  });

  it('fails after the last retry (5 attempts), and a resend (202) requeues it', async () => {
    deliveries.length = 0;
    script.push(503, 503, 500, 500, 500);
    await api('POST', 'customers', customerBody(5));
    await until('five deliveries', () => deliveries.length >= 5);
    const id = JSON.parse(deliveries[0]!.body).id;
    const failed = await until('the event failed', async () => {
      const x = await event(id);
      return x.delivery.status === 'failed' ? x : undefined;
    });
    expect(failed.delivery).toMatchObject({ attempts: 5, last_response_code: 500, next_attempt_at: null });
    expect((await api('GET', 'webhooks/events?status=failed')).body.data.map((x: { id: string }) => x.id)).toContain(id);

    const resent = await api('POST', `webhooks/events/${id}/resend`);
    expect(resent.status).toBe(202);
    expect(resent.body.delivery.status).toBe('pending');
    const delivered = await until('the event delivered', async () => {
      const x = await event(id);
      return x.delivery.status === 'delivered' ? x : undefined;
    });
    expect(delivered.delivery.attempts).toBe(6);
  });

  it('records connection errors as attempts and only ever posts to the configured URL', async () => {
    await admin(emu, 'POST', 'webhook-url', { url: 'http://127.0.0.1:1/nothing-here' });
    const c = await api('POST', 'customers', customerBody(6));
    const e = await until('an attempt at the new customer event', async () => {
      const list = (await api('GET', 'webhooks/events?type=customer.created&limit=1')).body.data[0];
      const x = await event(list.id);
      return x.data.object.id === c.body.id && x.attempts.length > 0 ? x : undefined;
    });
    expect(e.attempts[0]).toMatchObject({ response_code: null, url: 'http://127.0.0.1:1/nothing-here' });
    expect(e.attempts[0].error).toBeTruthy();
    expect((await admin(emu, 'POST', 'webhook-url', { url: 'ftp://x' })).status).toBe(422);
    await admin(emu, 'POST', 'webhook-url', { url: null });
  });

  it('state changes emit their event types', async () => {
    const types = new Set((await api('GET', 'webhooks/events?limit=100')).body.data.map((e: { type: string }) => e.type));
    expect([...types]).toEqual(expect.arrayContaining(['customer.created', 'customer.updated']));
    expect((await api('GET', 'webhooks/events?type=nope')).status).toBe(400);
  });
});
