// The client of a local emulator's admin routes: `/__emulator/…` at the origin of the resolved base
// URL (flag > env > profile > default, as for every command). No key is sent: the routes need none.
// Before anything acts, detect() makes sure an emulator is there: the base URL must be a loopback
// address (the admin routes answer loopback clients only, so a hosted service is never asked), and
// GET /__emulator/health must answer 200 with the `Pay-Emulator` header and a body naming the
// emulator and the same version (src/shared/emulator-id.ts). Anything else is a refusal (exit 2) or,
// when nothing answers, a network failure (exit 6). No redirect is followed; bodies are read up to
// the --max-response-bytes cap; each request has the --timeout. The plumbing is the API client's
// (src/api/client.ts): its connection pool (or the Factory's dispatcher), sendOnce, its --debug
// lines and their redaction.
import type { Dispatcher } from 'undici';
import { isLoopbackHost } from '../config/settings.js';
import { escapeText } from '../io/escape.js';
import { damagedIn, DryRunStop, ExitCode, exitCodeForStatus, NetworkError, PayError } from '../lib/errors.js';
import { EMULATOR_HEADER, EMULATOR_NAME, VERSION_SHAPE } from '../shared/emulator-id.js';
import { parseBody } from './answers.js';
import type { OutgoingRequest } from './client.js';
import { DebugLog, defaultDispatcher, describeNetworkError, sendOnce, TooLarge } from './transport.js';

export interface AdminOptions {
  /** The resolved base URL (…/v1/). */
  baseUrl: string;
  /** Where it came from, for messages: `--base-url`, `PAY_BASE_URL`, `profile "local" (sandbox)`, `default`. */
  baseUrlOrigin: string;
  timeoutMs: number;
  maxResponseBytes: number;
  dispatcher?: Dispatcher | undefined;
  /** Receives --debug lines (redacted). */
  debug?: ((line: string) => void) | undefined;
  /** Secrets never to print in them (the profile's key and webhook secret; anything shaped like one is masked too). */
  secrets?: readonly (string | undefined)[];
  /**
   * A dry run (--dry-run), as the API client's: each POST (what would change the emulator) is handed
   * to this instead of being sent, then DryRunStop is thrown. GETs are sent: the health check too, so
   * a dry run still refuses a base URL that is not an emulator.
   */
  dryRun?: ((req: OutgoingRequest) => void) | undefined;
}

/** What the emulator says about itself (GET /__emulator/health). */
export interface EmulatorInfo {
  version: string;
  url: string;
  started_at: string;
  uptime_s: number;
  data_dir: string | null;
  /** The business id its keys belong to (the default tenant); null from an emulator that does not say. */
  tenant_id: string | null;
}

export type Query = Record<string, string | number | undefined>;

const START_HINT =
  'start one with pay emulator start (it listens on http://127.0.0.1:8787/v1/ by default); point pay at yours with --base-url or PAY_BASE_URL, or a profile (pay emulator start can write one)';

export class EmulatorAdmin {
  /** http://127.0.0.1:8787 */
  readonly origin: string;
  private readonly dispatcher: Dispatcher;
  private readonly log: DebugLog;
  private info: EmulatorInfo | undefined;

  constructor(private readonly opts: AdminOptions) {
    this.origin = new URL(opts.baseUrl).origin;
    this.dispatcher = opts.dispatcher ?? defaultDispatcher();
    this.log = new DebugLog(opts.debug, opts.secrets ?? []);
  }

  /** The base URL is a loopback address (the only place an emulator's admin routes answer). */
  get local(): boolean {
    return isLoopbackHost(new URL(this.opts.baseUrl).hostname.replace(/^\[|\]$/g, ''));
  }

  /** `http://127.0.0.1:8787/v1/ (base URL from PAY_BASE_URL)` */
  private where(): string {
    const from = this.opts.baseUrlOrigin === 'default' ? 'the default base URL' : `base URL from ${this.opts.baseUrlOrigin}`;
    return `${this.opts.baseUrl} (${from})`;
  }

  /**
   * Makes sure a pay emulator answers at the base URL's origin, and what it says about itself.
   * Refuses (exit 2) a base URL that is not a loopback address, without sending anything, and a
   * server that does not name itself an emulator; exit 6 when nothing answers.
   */
  async detect(): Promise<EmulatorInfo> {
    if (this.info) return this.info;
    if (!this.local) {
      throw new PayError(
        `${this.where()} is not a local emulator: pay emulator commands drive an emulator on this machine (localhost, 127.x.x.x or [::1]), nothing was sent`,
        ExitCode.USAGE,
        'not_an_emulator',
        { hint: START_HINT, details: { base_url: this.opts.baseUrl } },
      );
    }
    const res = await this.send('GET', '/__emulator/health', undefined, undefined, true);
    const notEmulator = (why: string): PayError =>
      new PayError(`the server at ${this.where()} is not a pay emulator: ${why}; nothing was changed`, ExitCode.USAGE, 'not_an_emulator', {
        hint: START_HINT,
        details: { base_url: this.opts.baseUrl, ...(res.headers.server ? { server: res.headers.server } : {}) },
      });
    if (res.status !== 200) throw notEmulator(`GET /__emulator/health answered ${res.status}`);
    const header = res.headers[EMULATOR_HEADER];
    if (header === undefined) throw notEmulator(`its answer has no ${EMULATOR_HEADER} header`);
    const body = res.body as Partial<EmulatorInfo> & { emulator?: unknown; ok?: unknown };
    if (!isObject(body) || body.emulator !== EMULATOR_NAME || body.ok !== true)
      throw notEmulator(`its health answer does not name the emulator`);
    if (typeof body.version !== 'string' || !VERSION_SHAPE.test(body.version) || body.version !== header)
      throw notEmulator(`its health answer's version does not match its ${EMULATOR_HEADER} header`);
    this.info = {
      version: body.version,
      url: typeof body.url === 'string' ? body.url : this.origin,
      started_at: typeof body.started_at === 'string' ? body.started_at : '',
      uptime_s: typeof body.uptime_s === 'number' ? body.uptime_s : 0,
      data_dir: typeof body.data_dir === 'string' ? body.data_dir : null,
      tenant_id: typeof body.tenant_id === 'string' ? body.tenant_id : null,
    };
    return this.info;
  }

  /** GET an admin route (after detect()); a JSON object back, or a PayError. */
  async get<T = Record<string, unknown>>(route: string, query?: Query): Promise<T> {
    return this.call<T>('GET', route, undefined, query);
  }

  /** POST a JSON body to an admin route (after detect()). */
  async post<T = Record<string, unknown>>(route: string, body: unknown, query?: Query): Promise<T> {
    return this.call<T>('POST', route, body, query);
  }

  private async call<T>(method: 'GET' | 'POST', route: string, body: unknown, query?: Query): Promise<T> {
    await this.detect();
    if (this.opts.dryRun && method === 'POST') {
      const url = this.url(`/__emulator/${route}`, query);
      // No key is sent to the admin routes: nothing to mask.
      this.opts.dryRun({ method, url: url.toString(), headers: this.headers(body), body });
      throw new DryRunStop();
    }
    const res = await this.send(method, `/__emulator/${route}`, body, query, false);
    const b = res.body as { detail?: unknown; code?: unknown; request_id?: unknown } | undefined;
    if (res.status < 200 || res.status > 299) {
      const detail = isObject(b) && typeof b.detail === 'string' ? b.detail : `HTTP ${res.status}`;
      const code = isObject(b) && typeof b.code === 'string' ? b.code : `http_${res.status}`;
      throw new PayError(`${method} /__emulator/${route}: ${escapeText(detail.slice(0, 300))}`, exitCodeForStatus(res.status, code), code, {
        details: { status: res.status, request_id: isObject(b) ? b.request_id : undefined },
      });
    }
    if (!isObject(res.body))
      throw new PayError(`${method} /__emulator/${route}: the emulator answered without a JSON object`, ExitCode.ERROR, 'bad_response');
    return res.body as T;
  }

  private url(path: string, query: Query | undefined): URL {
    const url = new URL(path, this.origin);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  private headers(body: unknown): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'pay-cli' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    return headers;
  }

  private async send(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    query: Query | undefined,
    probing: boolean,
  ): Promise<{ status: number; headers: Record<string, string>; body: unknown }> {
    const url = this.url(path, query);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = this.headers(body);
    this.log.request(method, url, headers, payload);
    const started = Date.now();
    try {
      const res = await sendOnce(this.dispatcher, {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method,
        headers,
        body: payload,
        timeoutMs: this.opts.timeoutMs,
        maxBytes: this.opts.maxResponseBytes,
      });
      this.log.response(res.status, res.headers, res.text, Date.now() - started);
      return { status: res.status, headers: res.headers, body: parseBody(res.text) };
    } catch (err) {
      if (err instanceof TooLarge) {
        throw new PayError(
          `${method} ${url.pathname}: the answer is larger than ${this.opts.maxResponseBytes} bytes; pay stopped reading it`,
          probing ? ExitCode.USAGE : ExitCode.ERROR,
          probing ? 'not_an_emulator' : 'response_too_large',
          { hint: probing ? START_HINT : 'raise the cap with --max-response-bytes' },
        );
      }
      // A damaged build (llhttp's WebAssembly missing or cut) is not the network's fault.
      const damaged = damagedIn(err);
      if (damaged) throw damaged;
      const reason = describeNetworkError(err, this.opts.timeoutMs);
      this.log.line(`! ${reason} after ${Date.now() - started} ms`);
      throw new NetworkError(
        probing
          ? `no emulator answers at ${this.where()}: ${reason}`
          : `${method} ${url.pathname} to the emulator at ${this.origin} failed: ${reason}`,
        { hint: probing ? START_HINT : undefined, details: { url: url.toString() }, cause: err },
      );
    }
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
