// A small loopback HTTP server that records every request and answers from a script:
// tests queue responses (status, headers, body, or "reset the connection") per call.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: string;
  json: unknown;
}

export interface Scripted {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Destroy the socket without answering. */
  reset?: boolean;
}

export interface RecordingServer {
  url: string;
  baseUrl: string;
  requests: Recorded[];
  /** Responses to give, in order; when empty, `fallback` answers. */
  queue: Scripted[];
  fallback: Scripted;
  close(): Promise<void>;
}

export async function startRecordingServer(fallback: Scripted = { status: 200, body: {} }): Promise<RecordingServer> {
  const requests: Recorded[] = [];
  const queue: Scripted[] = [];
  const state = { fallback };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      let json: unknown;
      try {
        json = body ? JSON.parse(body) : undefined;
      } catch {
        json = undefined;
      }
      requests.push({
        method: req.method ?? '',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body,
        json,
      });
      const s = queue.shift() ?? state.fallback;
      if (s.reset) {
        req.socket.destroy();
        return;
      }
      const status = s.status ?? 200;
      const isProblem = status >= 400;
      res.writeHead(status, {
        'content-type': isProblem ? 'application/problem+json' : 'application/json',
        'request-id': `req_test${requests.length}`,
        ...s.headers,
      });
      res.end(s.body === undefined ? '' : JSON.stringify(s.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: `${url}/v1/`,
    requests,
    queue,
    get fallback() {
      return state.fallback;
    },
    set fallback(v: Scripted) {
      state.fallback = v;
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
