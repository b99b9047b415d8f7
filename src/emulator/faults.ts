// Fault injection and rate limiting, both off by default.
// failRate P: a request fails with 500 or 503 (Retry-After 0 or 1) with probability P; half of
// the failures happen AFTER the request ran and its writes committed (the response is lost but
// the object exists: an idempotent retry replays the stored response). resetRate P: the socket
// is destroyed without an answer (also half before, half after the work). latencyMs [min, max]:
// a random delay before the request runs. Rate limit: a token bucket per API key; empty → 429.
import type { RateLimit } from '../shared/fault-syntax.js';
import { ApiProblem } from './problems.js';

// The flags' syntax is shared with the CLI (src/shared/fault-syntax.ts).
export { isRate, parseLatency, parseRateLimit, type RateLimit } from '../shared/fault-syntax.js';

export interface FaultSettings {
  failRate: number;
  latencyMs: [number, number] | null;
  resetRate: number;
  rateLimit: RateLimit | null;
}

export type When = 'before' | 'after' | undefined;

export interface Plan {
  latency: number;
  fail: When;
  failStatus: 500 | 503;
  reset: When;
}

const NONE: Plan = { latency: 0, fail: undefined, failStatus: 500, reset: undefined };

export class Faults {
  settings: FaultSettings = { failRate: 0, latencyMs: null, resetRate: 0, rateLimit: null };
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  readonly counts = { failed: 0, reset: 0, rate_limited: 0 };

  constructor(private readonly random: () => number = Math.random) {}

  set(s: Partial<FaultSettings>): void {
    this.settings = { ...this.settings, ...s };
    if (s.rateLimit !== undefined) this.buckets.clear();
  }

  /** What to do to this request. */
  plan(): Plan {
    const s = this.settings;
    if (s.failRate === 0 && s.resetRate === 0 && !s.latencyMs) return NONE;
    const r = this.random;
    const latency = s.latencyMs ? s.latencyMs[0] + Math.floor(r() * (s.latencyMs[1] - s.latencyMs[0] + 1)) : 0;
    const reset: When = s.resetRate > 0 && r() < s.resetRate ? (r() < 0.5 ? 'before' : 'after') : undefined;
    const fail: When = !reset && s.failRate > 0 && r() < s.failRate ? (r() < 0.5 ? 'before' : 'after') : undefined;
    if (reset) this.counts.reset++;
    if (fail) this.counts.failed++;
    return { latency, fail, failStatus: r() < 0.5 ? 500 : 503, reset };
  }

  failure(plan: Plan): ApiProblem {
    return plan.failStatus === 503
      ? new ApiProblem(503, 'service_unavailable', 'injected fault: the service is temporarily unavailable', undefined, {
          'Retry-After': this.random() < 0.5 ? '0' : '1',
        })
      : new ApiProblem(500, 'internal_error', 'injected fault: internal error (safe to retry with the same Idempotency-Key)');
  }

  /** Takes a token for this API key or throws 429. */
  take(apiKey: string): void {
    const limit = this.settings.rateLimit;
    if (!limit) return;
    const now = performance.now();
    let b = this.buckets.get(apiKey);
    if (!b) this.buckets.set(apiKey, (b = { tokens: limit.burst, at: now }));
    b.tokens = Math.min(limit.burst, b.tokens + ((now - b.at) / 1000) * limit.perSecond);
    b.at = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return;
    }
    this.counts.rate_limited++;
    const wait = Math.max(1, Math.ceil((1 - b.tokens) / limit.perSecond));
    throw new ApiProblem(
      429,
      'rate_limited',
      `rate limit of ${limit.perSecond} requests per second exceeded; retry after ${wait} s`,
      undefined,
      {
        'Retry-After': String(wait),
      },
    );
  }
}
