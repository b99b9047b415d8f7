// The request pipeline: route → auth → rate limit → faults → tenant → idempotency key → body →
// query → due settlements → idempotent replay, or (injected latency →) handler → durable commit
// → response. A response is sent only once every change made before it is durable (a read waits
// for the commits in flight); while the data dir cannot be written, changes get 503 + Retry-After.
// Every failure becomes a problem response; an unexpected exception is a 500 and the server
// keeps serving. Timeouts bound slow clients (slowloris). Before anything, web-guard.ts refuses
// what a web page could send (a foreign Host, an Origin, a CORS preflight).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { admin } from './admin.js';
import { App } from './app.js';
import { tenantOf } from './auth.js';
import { iso } from './clock.js';
import { parseBody, parseQuery, readBody, send, sendProblem } from './http.js';
import { checkKey, fingerprint, Idempotency } from './idempotency.js';
import { DiskUnavailable } from './journal.js';
import { randomChars } from './ids.js';
import { ApiProblem, problemBody } from './problems.js';
import { DEPRECATED_SINCE } from './resources/kyc.js';
import { routeNotFound } from './router.js';
import type { Ctx, Reply } from './types.js';
import { webGuard, type WebGuardOptions } from './web-guard.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createApiServer(app: App, web: WebGuardOptions = {}): Server {
  const server = createServer(
    {
      requestTimeout: 30_000,
      headersTimeout: 20_000,
      keepAliveTimeout: 5_000,
      connectionsCheckingInterval: 1_000,
      maxHeaderSize: 16 * 1024,
    },
    (req, res) => {
      handle(app, web, req, res).catch((err: unknown) => {
        app.fault(err);
        const rid = `req_${randomChars(24)}`;
        if (!res.headersSent) sendProblem(res, new ApiProblem(500, 'internal_error', 'unexpected error; safe to retry'), rid);
        else res.destroy();
      });
    },
  );
  server.maxHeadersCount = 100;
  // Backstop for sockets that go quiet mid-request or between requests (headersTimeout and
  // requestTimeout bound slow requests; keepAliveTimeout bounds idle keep-alive connections).
  server.setTimeout(120_000, (socket) => socket.destroy());
  // CONNECT (a proxy tunnel) and an Expect other than 100-continue bypass the request handler;
  // Node would drop the socket or answer a bare 417. Both get a problem+json like any bad request.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    rawProblem(socket, 405, 'Method Not Allowed', 'method_not_allowed', 'CONNECT is not supported: this is an API server, not a proxy');
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    sendProblem(
      res,
      new ApiProblem(417, 'expectation_failed', `Expect: ${String(req.headers.expect).slice(0, 64)} is not supported (only 100-continue)`),
      `req_${randomChars(24)}`,
      { Connection: 'close' },
    );
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || socket.destroyed) return void socket.destroy();
    const [status, code, text] =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request_timeout', 'Request Timeout']
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'headers_too_large', 'Request Header Fields Too Large']
          : [400, 'bad_request', 'Bad Request'];
    rawProblem(socket, status, text, code, `malformed request (${err.code ?? 'parse error'})`);
  });
  return server;
}

/** A problem+json answer written straight to a socket (outside the request handler), then closed. */
function rawProblem(socket: Socket, status: number, text: string, code: string, detail: string): void {
  if (!socket.writable || socket.destroyed) return void socket.destroy();
  const rid = `req_${randomChars(24)}`;
  const body = problemBody(new ApiProblem(status, code, detail), rid);
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nRequest-Id: ${rid}\r\nConnection: close\r\n\r\n${body}`,
  );
}

async function handle(app: App, web: WebGuardOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const rid = `req_${randomChars(24)}`;
  app.counters.requests++;
  const refused = webGuard(req, web);
  if (refused) return sendProblem(res, refused, rid);
  const url = req.url ?? '/';
  const qi = url.indexOf('?');
  const path = qi < 0 ? url : url.slice(0, qi);
  const qs = qi < 0 ? '' : url.slice(qi + 1);
  const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
  let extra: Record<string, string> | undefined;
  let inflight: string | undefined;
  try {
    if (path === '/__emulator' || path.startsWith('/__emulator/')) return await admin(app, req, res, rid, method, path, qs);
    // Parsed once: recorded as given, then checked against the route.
    const pairs: Array<[string, string]> = qs === '' ? [] : [...new URLSearchParams(qs)];
    const seen = app.requests.record(method, path, Object.fromEntries(pairs), req.headers, {
      requestId: rid,
      receivedAt: iso(app.clock.now()),
      rawQuery: qs,
    });
    // Answered, or dropped (a reset fault, a client gone): the log records which, and how long it took.
    // (`on`, not `once`: a response closes once, and finish() counts only its first call anyway.)
    res.on('close', () => seen.finish(res.headersSent ? res.statusCode : null));
    if (!path.startsWith('/v1/')) throw routeNotFound(path);
    if (!app.journal.readable) throw app.journal.unavailable();
    const { route, params } = app.router.match(method, path.slice(3));
    const caller = app.auth.check(req.headers['api-key']);
    app.faults.take(caller.apiKey);
    const plan = app.faults.plan();
    if (plan.reset === 'before') return void req.socket.destroy();
    if (plan.fail === 'before') throw app.faults.failure(plan);
    const tenant = tenantOf(req.headers['x-tenant-id'], route.tenantRequired === true, app.identity.tenant_id);
    const idemKey = method === 'POST' ? checkKey(req.headers['idempotency-key']) : undefined;
    const raw = method === 'GET' ? '' : await readBody(req);
    if (raw !== '') app.requests.attach(seen, raw);
    const body = parseBody(raw);
    const query = parseQuery(route, pairs);
    app.due.run();

    const scope = App.scope(caller.mode, tenant);
    const ctx: Ctx = { app, mode: caller.mode, tenant, scope, livemode: caller.mode === 'live', params, query, body, tx: app.tx() };
    if (route.successor) extra = { Deprecation: DEPRECATED_SINCE, Link: route.successor(ctx) };

    let fp = '';
    if (idemKey !== undefined) {
      const key = Idempotency.scopeKey(caller.mode, tenant, idemKey);
      fp = fingerprint(method, path, body);
      const stored = app.idem.begin(key, fp, app.clock.now());
      if (stored) {
        seen.replayed = true;
        return send(res, stored.s, stored.b, rid, { ...extra, 'Idempotent-Replayed': 'true' });
      }
      inflight = key;
    }
    // Injected latency is processing time: a POST holds its Idempotency-Key in flight meanwhile.
    if (plan.latency > 0) await sleep(plan.latency);
    // A change now could not be kept (an idempotent replay above still can be answered).
    if (method !== 'GET' && !app.journal.writable) throw app.journal.unavailable();

    let reply: Reply & { headers?: Record<string, string> | undefined };
    try {
      reply = route.handler(ctx);
    } catch (e) {
      if (!(e instanceof ApiProblem) || e.status >= 500) {
        // Keep disk equal to memory even when a handler failed half-way.
        await app.journal.commit(ctx.tx.ops).catch(() => {});
        throw e;
      }
      reply = { status: e.status, json: problemBody(e, rid), headers: e.headers };
    }
    if (inflight) {
      const op = app.idem.store(
        inflight,
        { f: fp, s: reply.status, b: reply.json, t: app.clock.now(), r: reply.rec },
        reply.rec === undefined || app.refOk(reply.rec),
      );
      if (app.store.persist) ctx.tx.ops.push(op);
    }
    if (ctx.tx.ops.length > 0) await app.journal.commit(ctx.tx.ops);
    else {
      const durable = app.journal.barrier();
      if (durable) await durable;
    }
    for (const f of ctx.tx.after) f();
    if (plan.reset === 'after') return void req.socket.destroy();
    if (plan.fail === 'after') throw app.faults.failure(plan);
    send(res, reply.status, reply.json, rid, reply.headers ? { ...extra, ...reply.headers } : extra);
  } catch (e) {
    let p: ApiProblem;
    if (e instanceof ApiProblem) p = e;
    else if (e instanceof DiskUnavailable)
      p = new ApiProblem(503, 'service_unavailable', `${e.message}; retry later`, undefined, { 'Retry-After': String(e.retryAfterS) });
    else {
      app.fault(e);
      p = new ApiProblem(500, 'internal_error', 'unexpected error; safe to retry with the same Idempotency-Key');
    }
    sendProblem(res, p, rid, extra);
  } finally {
    if (inflight) app.idem.end(inflight);
  }
}
