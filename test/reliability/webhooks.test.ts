// Webhook verification (issue 7, point 5): the signature module (src/shared/signature.ts)
// directly, `pay webhooks verify` and `pay webhooks listen` as child processes. Generated
// deliveries (fast-check) with a wrong secret, a tampered body (one byte), a tampered id,
// timestamp or signature (one character, or the same bytes spelt differently), the valid
// signature among others in any order (accepted: any one `v1,` signature may match), only
// invalid ones, other versions, signatures of other lengths, stale and future timestamps (more
// than 5 minutes away; exactly 5 minutes still passes), missing and malformed headers: each is
// accepted exactly when the test's own HMAC says it should be. A running `listen --skip-duplicates`
// accepts each webhook-id once, however often and in whatever order it is delivered (also
// concurrently while forwarding), and logs every rejection; by default it forwards every copy
// once, numbered as a repeat. The comparison is constant time: the source only ever
// compares the expected MAC with crypto.timingSafeEqual on buffers of equal length, every
// candidate is compared (no early exit), and signatures of other lengths are refused without
// throwing.
//
// Reproduce a failing vector: PAY_FUZZ_SEED=<seed printed in the failure> npm run test:reliability -- webhooks
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import * as realCrypto from 'node:crypto';
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sign, TOLERANCE_SECONDS, verify } from '../../src/shared/signature.js';
import { until } from '../helpers/wait.js';
import {
  cleanEnv,
  count,
  pay,
  pool,
  record,
  registerSecret,
  shown,
  spawnPay,
  stackTrace,
  tempIn,
  tempRoot,
  type Counts,
} from './helpers.js';

// Counts the calls of timingSafeEqual made by the signature module (the real function runs).
vi.mock('node:crypto', async (importOriginal) => {
  const m = await importOriginal<typeof import('node:crypto')>();
  const timingSafeEqual = vi.fn(m.timingSafeEqual);
  return { ...m, default: { ...m, timingSafeEqual }, timingSafeEqual };
});

const SEED = process.env.PAY_FUZZ_SEED ? Number(process.env.PAY_FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const MODULE_RUNS = count(3000, 30_000);
const CLI_RUNS = count(24, 400);
const LISTEN_IDS = count(25, 400);
const RACE_IDS = count(6, 100);
const TOL = TOLERANCE_SECONDS;

let root: string;

beforeAll(() => {
  root = tempRoot('webhooks');
});

// ---------------------------------------------------------------------------------------------
// The oracle: our own HMAC (not the module's sign()), Standard Webhooks style.

const secretOf = (bytes: Uint8Array): string => `whsec_${Buffer.from(bytes).toString('base64')}`;

function hmac(secretBytes: Uint8Array, id: string, ts: string, body: Uint8Array): string {
  return createHmac('sha256', Buffer.from(secretBytes)).update(`${id}.${ts}.`).update(body).digest('base64');
}

const KINDS = [
  'valid',
  'edge',
  'header-case',
  'among-decoys',
  'wrong-secret',
  'tampered-body',
  'tampered-id',
  'tampered-timestamp',
  'tampered-signature',
  'decoys-only',
  'other-version',
  'other-length',
  'stale',
  'future',
  'missing-header',
  'malformed-timestamp',
  'malformed-signature',
  'bad-secret',
] as const;
type Kind = (typeof KINDS)[number];
const ACCEPTED = new Set<Kind>(['valid', 'edge', 'header-case', 'among-decoys']);

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

interface Raw {
  kind: Kind;
  secret: Uint8Array;
  other: Uint8Array;
  id: string;
  body: Uint8Array;
  inside: number;
  far: number;
  pick: number;
  pick2: number;
  decoys: string[];
  caseMask: number;
}

/** Header-safe printable ids (webhook-id), some evt_-like. */
const idArb = fc.oneof(
  fc.stringMatching(/^evt_[0-9a-z]{24}$/),
  fc.stringMatching(/^msg_[0-9A-Za-z]{1,30}$/),
  fc.stringMatching(/^[\x21-\x7e]{1,40}$/),
);
const decoyArb = fc.oneof(
  fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `v1,${Buffer.from(b).toString('base64')}`),
  fc.uint8Array({ minLength: 0, maxLength: 80 }).map((b) => `v1,${Buffer.from(b).toString('base64')}`),
  fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `v2,${Buffer.from(b).toString('base64')}`),
  fc.constantFrom('v1', 'v1,', ',', 'v1,,', 'v1,====', 'v1a,AAAA', 'x', 'v1,!!!!', 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='),
);
const rawArb: fc.Arbitrary<Raw> = fc.record({
  kind: fc.constantFrom(...KINDS),
  secret: fc.uint8Array({ minLength: 1, maxLength: 64 }),
  other: fc.uint8Array({ minLength: 1, maxLength: 64 }),
  id: idArb,
  body: fc.oneof(
    fc.uint8Array({ maxLength: 2048 }),
    fc.jsonValue().map((v) => new TextEncoder().encode(JSON.stringify({ type: 'transfer.completed', data: v }))),
  ),
  inside: fc.integer({ min: -TOL, max: TOL }),
  far: fc.integer({ min: TOL + 1, max: 400 * 86_400 }),
  pick: fc.nat(),
  pick2: fc.nat(),
  decoys: fc.array(decoyArb, { minLength: 1, maxLength: 5 }),
  caseMask: fc.nat(),
});

interface Delivery {
  kind: Kind;
  variant: string;
  /** The verifier's secret. */
  secret: string;
  headers: Record<string, string>;
  body: Buffer;
  expectOk: boolean;
  id: string;
  ts: number;
}

function randomCase(name: string, mask: number): string {
  return [...name].map((ch, i) => ((mask >> (i % 30)) & 1 ? ch.toUpperCase() : ch)).join('');
}

/**
 * One generated delivery, signed at `now` (unix seconds) and altered per its kind. `margin`
 * keeps timestamps that far from the tolerance's edges, for a verifier whose clock has moved on
 * (a child process, a listener): the edge case is then `margin` inside it.
 */
function build(r: Raw, now: number, margin = 0): Delivery {
  const secret = secretOf(r.secret);
  const inside = Math.max(-(TOL - margin), Math.min(TOL - margin, r.inside));
  const far = Math.max(r.far, TOL + 1 + margin);
  let id = r.id;
  let ts = now + inside;
  let body = Buffer.from(r.body);
  let variant = '';
  const sigOf = (secretBytes: Uint8Array = r.secret, i = id, t = String(ts), b: Uint8Array = body) => `v1,${hmac(secretBytes, i, t, b)}`;
  let tsHeader = String(ts);
  let sig = sigOf();
  let names = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
  let verifierSecret = secret;
  switch (r.kind) {
    case 'valid':
      break;
    case 'edge':
      ts = now + (r.pick % 2 ? TOL - margin : -(TOL - margin));
      tsHeader = String(ts);
      sig = sigOf();
      break;
    case 'header-case':
      names = names.map((n, i) => randomCase(n, r.caseMask >> (i * 7)));
      break;
    case 'among-decoys': {
      const all = [...r.decoys];
      all.splice(r.pick % (all.length + 1), 0, sig);
      sig = all.join(' ');
      break;
    }
    case 'decoys-only':
      sig = r.decoys.join(' ');
      break;
    case 'wrong-secret': {
      const other = Buffer.from(r.other);
      if (other.equals(Buffer.from(r.secret))) other[0] = other[0]! ^ 0xff;
      sig = sigOf(other);
      break;
    }
    case 'tampered-body': {
      const signed = sig;
      if (body.length === 0) body = Buffer.from([r.pick % 256]);
      else {
        body = Buffer.from(body);
        const i = r.pick % body.length;
        body[i] = body[i]! ^ (1 + (r.pick2 % 255));
      }
      sig = signed;
      variant = `byte ${r.pick % Math.max(1, r.body.length)}`;
      break;
    }
    case 'tampered-id': {
      const signedFor = id;
      id = r.pick % 2 && /[a-z]/.test(id) ? id.replace(/[a-z]/, (c) => c.toUpperCase()) : `${id}${B64[r.pick2 % 64]}`;
      sig = sigOf(r.secret, signedFor);
      break;
    }
    case 'tampered-timestamp': {
      // The header's number stays inside the tolerance: only the signature can refuse it.
      const forms = [String(ts + (ts + 1 - now <= TOL - margin ? 1 : -1)), `0${ts}`];
      tsHeader = forms[r.pick % forms.length]!;
      variant = tsHeader === `0${ts}` ? 'leading zero' : 'off by one second';
      break;
    }
    case 'tampered-signature': {
      // One character changed, or the same bytes spelt otherwise (no padding, URL-safe
      // alphabet, junk inside, extra padding): the signature is no longer the one sent.
      const value = sig.slice(3);
      const forms: Array<[string, string]> = [];
      const p = r.pick % value.length;
      const alphabet = `${B64}=-_!. `;
      let c = alphabet[r.pick2 % alphabet.length]!;
      if (c === value[p]) c = alphabet[(r.pick2 + 1) % alphabet.length]!;
      forms.push(['one character', value.slice(0, p) + c + value.slice(p + 1)]);
      // The last character before '=' carries 2 unused bits: a change there decodes to the same bytes.
      const last = value.indexOf('=') - 1;
      const low = B64[(B64.indexOf(value[last]!) & ~3) | ((B64.indexOf(value[last]!) + 1 + (r.pick2 % 3)) & 3)]!;
      forms.push(['unused bits of the last character', value.slice(0, last) + low + value.slice(last + 1)]);
      forms.push(['no padding', value.replace(/=+$/, '')]);
      forms.push(['extra padding', `${value}=`]);
      forms.push(['junk inside', `${value.slice(0, p)}!${value.slice(p)}`]);
      if (/[+/]/.test(value)) forms.push(['URL-safe alphabet', value.replace(/\+/g, '-').replace(/\//g, '_')]);
      const [name, v] = forms[r.pick2 % forms.length]!;
      variant = name;
      sig = `v1,${v}`;
      break;
    }
    case 'other-version': {
      const forms = [
        `v2,${sig.slice(3)}`,
        `V1,${sig.slice(3)}`,
        `v1=${sig.slice(3)}`,
        `v1a,${sig.slice(3)}`,
        `v1,${Buffer.from(sig.slice(3), 'base64').toString('hex')}`,
      ];
      sig = forms[r.pick % forms.length]!;
      variant = sig.slice(0, 4);
      break;
    }
    case 'other-length': {
      const full = Buffer.from(sig.slice(3), 'base64');
      const lengths = [0, 1, 16, 31, 33, 64, 200];
      const n = lengths[r.pick % lengths.length]!;
      // Prefixes and extensions of the right MAC, and random bytes.
      const bytes = r.pick2 % 2 ? Buffer.concat([full, randomBytes(Math.max(0, n - 32))]).subarray(0, n) : randomBytes(n);
      sig = `v1,${bytes.toString('base64')}`;
      variant = `${n} bytes`;
      break;
    }
    case 'stale':
      ts = now - far;
      tsHeader = String(ts);
      sig = sigOf();
      break;
    case 'future':
      ts = now + far;
      tsHeader = String(ts);
      sig = sigOf();
      break;
    case 'missing-header':
      variant = names[r.pick % 3]!;
      break;
    case 'malformed-timestamp': {
      const forms = ['abc', `${ts}.5`, '-1', `${ts}e0`, `+${ts}`, `0x${ts.toString(16)}`, '9'.repeat(13), `${ts}s`, '1.7e9'];
      tsHeader = forms[r.pick % forms.length]!;
      sig = sigOf(r.secret, id, tsHeader);
      variant = tsHeader;
      break;
    }
    case 'malformed-signature': {
      const forms = ['v1', 'v1,', ',', 'v1,,', ',v1', 'v1 ,', 'garbage', 'v1,!!!!', `${sig} `.slice(3)];
      sig = forms[r.pick % forms.length]!;
      variant = sig.slice(0, 10);
      break;
    }
    case 'bad-secret': {
      const forms = ['whsec_', 'whsec_!!!', 'whsec_a b', 'whsec_===='];
      verifierSecret = forms[r.pick % forms.length]!;
      variant = verifierSecret;
      break;
    }
  }
  const values = [id, tsHeader, sig];
  const headers: Record<string, string> = {};
  names.forEach((n, i) => {
    if (r.kind === 'missing-header' && n === variant) return;
    headers[n] = values[i]!;
  });
  return { kind: r.kind, variant, secret: verifierSecret, headers, body, expectOk: ACCEPTED.has(r.kind), id, ts };
}

// ---------------------------------------------------------------------------------------------
// webhooks.verify: the module, the CLI, constant time

const verifyTally: Counts & { extra: Record<string, number | string> } = {
  tried: 0,
  passed: 0,
  lost: 0,
  duplicated: 0,
  leaked: 0,
  extra: { seed: SEED },
};
let verifyStarted = 0;

/** A forward target that records each webhook-id and answers 204 150 ms later (slow enough for copies to overlap); its port (closed with `servers`). */
async function slowTarget(got: string[], servers: Server[]): Promise<number> {
  const target = createServer((req, res) => {
    const id = String(req.headers['webhook-id']);
    req.resume();
    req.on('end', () => {
      got.push(id);
      setTimeout(() => res.writeHead(204).end(), 150);
    });
  });
  servers.push(target);
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  return (target.address() as { port: number }).port;
}

describe('webhooks.verify', () => {
  beforeAll(() => {
    verifyStarted = Date.now();
  });
  afterAll(async () => {
    await record(
      'webhooks.verify',
      'signature checks: wrong secret, tampered, reordered, stale/future, malformed; constant time',
      verifyTally,
      verifyStarted,
    );
  });

  it(`${MODULE_RUNS} generated deliveries through verify(): accepted exactly when our HMAC says so (seed ${SEED})`, () => {
    const now = Math.floor(Date.now() / 1000);
    const raws = fc.sample(rawArb, { numRuns: MODULE_RUNS, seed: SEED });
    const failures: string[] = [];
    const byKind: Record<string, number> = {};
    let passed = 0;
    let falseAccepts = 0;
    let falseRejects = 0;
    for (const [i, raw] of raws.entries()) {
      const d = build(raw, now);
      byKind[d.kind] = (byKind[d.kind] ?? 0) + 1;
      let why = '';
      try {
        const r = verify(d.secret, d.headers, d.body, now);
        if (r.ok !== d.expectOk) {
          why = d.expectOk ? `refused: ${r.ok ? '' : r.reason}` : 'accepted';
          if (r.ok) falseAccepts++;
          else falseRejects++;
        } else if (r.ok && (r.id !== d.id || r.timestamp !== d.ts)) why = `accepted with id ${r.id} timestamp ${r.timestamp}`;
        else if (!r.ok && (!r.reason || (d.secret.length > 12 && r.reason.includes(d.secret.slice(6))))) why = `reason "${r.reason}"`;
        else if (!r.ok && d.kind === 'stale' && !/too old/.test(r.reason)) why = `stale refused for "${r.reason}"`;
        else if (!r.ok && d.kind === 'future' && !/in the future/.test(r.reason)) why = `future refused for "${r.reason}"`;
      } catch (err) {
        why = `threw ${(err as Error).message}`;
      }
      if (why) failures.push(`#${i} ${d.kind}${d.variant ? ` (${d.variant})` : ''}: ${why}`);
      else passed++;
    }
    // Our oracle agrees with the module's sign() (so the CLI cases below may sign with it).
    for (const raw of raws.slice(0, 200)) {
      const s = secretOf(raw.secret);
      if (sign(s, raw.id, 1_700_000_000, Buffer.from(raw.body)) !== `v1,${hmac(raw.secret, raw.id, '1700000000', raw.body)}`)
        failures.push(`sign() disagrees with HMAC-SHA256 for id ${raw.id}`);
    }
    verifyTally.tried += raws.length;
    verifyTally.passed += passed;
    verifyTally.extra.module_cases = raws.length;
    verifyTally.extra.false_accepts = (Number(verifyTally.extra.false_accepts) || 0) + falseAccepts;
    verifyTally.extra.false_rejects = (Number(verifyTally.extra.false_rejects) || 0) + falseRejects;
    // Every kind was generated.
    for (const k of KINDS) if (!byKind[k]) failures.push(`no ${k} case generated`);
    expect(failures.slice(0, 30), `seed ${SEED}`).toEqual([]);
  });

  it(`pay webhooks verify: a catalogue and ${CLI_RUNS} generated deliveries (seed ${SEED})`, async () => {
    const dir = tempIn(root, 'verify-');
    // Kinds the CLI reaches the same way; argv carries no NUL, so every generated id qualifies.
    const raws = fc.sample(rawArb, { numRuns: CLI_RUNS, seed: SEED + 1 });
    // The catalogue: one of each kind, whatever the sample drew.
    const catalogue = KINDS.map((kind, i) => ({ ...fc.sample(rawArb, { numRuns: 1, seed: SEED + 100 + i })[0]!, kind }));
    const cases = [...catalogue, ...raws].map((raw, i) => ({ raw, i, how: raw.pick2 }));
    const secrets = new Set<string>();
    const failures: string[] = [];
    let leaked = 0;
    const results = await pool(cases, 4, async ({ raw, i, how }) => {
      // Signed now; pay reads its own clock a moment later.
      const d = build(raw, Math.floor(Date.now() / 1000), 30);
      if (d.secret.length > 12) secrets.add(d.secret);
      registerSecret(d.secret);
      const file = join(dir, `body-${i}.bin`);
      const viaStdin = how % 3 === 0;
      if (!viaStdin) writeFileSync(file, d.body);
      const args = ['webhooks', 'verify', `--payload=${viaStdin ? '-' : file}`];
      const json = how % 5 === 0;
      if (json) args.push('--json');
      // Header names in any case only travel as --header lines; the rest half and half.
      for (const [name, value] of Object.entries(d.headers)) {
        const asLine = d.kind === 'header-case' || (how >> 2) % 2 === 0;
        // --header trims its value: values with outer spaces go through the flags.
        if (asLine && value.trim() === value) args.push(`--header=${name}: ${value}`);
        else
          args.push(
            `--${{ 'webhook-id': 'id', 'webhook-timestamp': 'timestamp', 'webhook-signature': 'signature' }[name.toLowerCase()]}=${value}`,
          );
      }
      const env = cleanEnv({ PAY_CONFIG_DIR: join(dir, 'cfg') });
      if ((how >> 3) % 2 === 0) args.push(`--secret=${d.secret}`);
      else env.PAY_WEBHOOK_SECRET = d.secret;
      const r = await pay(args, { env, ...(viaStdin ? { stdin: d.body } : {}), secrets: [d.secret] });
      const missing = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].some(
        (h) => !Object.entries(d.headers).some(([k, v]) => k.toLowerCase() === h && v !== ''),
      );
      // A malformed secret is a usage error when it is read, before anything is checked.
      const want = missing || d.kind === 'bad-secret' ? 2 : d.expectOk ? 0 : 1;
      leaked += r.leaks.length;
      const bad = [
        r.code !== want ? `exit ${r.code}, want ${want}: ${r.stderr.trim().slice(0, 200)}` : '',
        want === 0 && !json && r.stdout !== 'valid\n' ? `stdout ${JSON.stringify(r.stdout.slice(0, 80))}` : '',
        want === 0 && json && JSON.parse(r.stdout || '{}').webhook_id !== d.id ? `--json stdout ${r.stdout.slice(0, 120)}` : '',
        want === 1 && !json && !/^invalid: /.test(r.stderr) ? `stderr ${JSON.stringify(r.stderr.slice(0, 120))}` : '',
        want !== 0 && r.stdout !== '' ? `stdout not empty: ${r.stdout.slice(0, 80)}` : '',
        stackTrace(r.stderr) ? 'stack trace' : '',
        r.leaks.length ? 'printed the secret' : '',
      ].filter(Boolean);
      if (bad.length) failures.push(`#${i} ${d.kind}${d.variant ? ` (${d.variant})` : ''} ${shown(args.slice(0, 4))}: ${bad.join('; ')}`);
      return bad.length === 0;
    });
    verifyTally.tried += cases.length;
    verifyTally.passed += results.filter(Boolean).length;
    verifyTally.leaked += leaked;
    verifyTally.extra.cli_runs = cases.length;
    expect(failures, `seed ${SEED}`).toEqual([]);
  }, 600_000);

  it('constant time: timingSafeEqual on equal-length buffers only, every candidate compared, other lengths refused without throwing', async () => {
    const checks: Array<[string, boolean]> = [];
    const check = (what: string, ok: boolean): void => void checks.push([what, ok]);

    // The source: the expected MAC is only ever measured or handed to timingSafeEqual.
    const src = readFileSync(new URL('../../src/shared/signature.ts', import.meta.url), 'utf8');
    check('signature.ts imports timingSafeEqual from node:crypto', /import \{[^}]*\btimingSafeEqual\b[^}]*\} from 'node:crypto'/.test(src));
    const body = src.slice(src.indexOf('export function verify('));
    const decl =
      /(?:let|const) (\w+): Buffer;?[\s\S]*?\1 = Buffer\.from\(sign\(/.exec(body) ?? /const (\w+) = Buffer\.from\(sign\(/.exec(body);
    check('verify() keeps the expected MAC as a Buffer', !!decl);
    const name = decl?.[1] ?? 'expected';
    const uses = [...body.matchAll(new RegExp(`\\b${name}\\b(.{0,12})`, 'g'))].map((m) =>
      body.slice(Math.max(0, m.index - 40), m.index + m[0].length),
    );
    const allowed = (u: string) =>
      new RegExp(
        `(let|const) ${name}: Buffer|${name} = Buffer\\.from\\(sign\\(|${name}\\.length\\b|timingSafeEqual\\([^)]*\\b${name}\\)`,
      ).test(u);
    const other = uses.filter((u) => !allowed(u));
    check(`the expected MAC is only measured or passed to timingSafeEqual (other uses: ${other.join(' | ')})`, other.length === 0);
    const calls = [...body.matchAll(/timingSafeEqual\((\w+), (\w+)\)/g)];
    check('verify() calls timingSafeEqual', calls.length > 0);
    for (const c of calls) {
      const guard = new RegExp(
        `${c[1]}\\.length === ${c[2]}\\.length && timingSafeEqual\\(${c[1]}, ${c[2]}\\)|${c[2]}\\.length === ${c[1]}\\.length && timingSafeEqual\\(${c[1]}, ${c[2]}\\)`,
      );
      check(`timingSafeEqual(${c[1]}, ${c[2]}) only on equal lengths`, guard.test(body));
    }
    check(
      'no equality on the MAC (==, ===, .equals, .compare)',
      !new RegExp(`${name}\\.(equals|compare)\\(|[=!]==?\\s*${name}\\b(?!\\.length)|\\b${name}\\s*[=!]=`).test(body),
    );
    // listen and verify go through verify(); nothing else computes or compares a signature.
    for (const f of ['src/commands/webhooks/listen.ts', 'src/commands/webhooks/verify.ts']) {
      const s = readFileSync(new URL(`../../${f}`, import.meta.url), 'utf8');
      check(
        `${f} uses verify() from the signature module`,
        /import \{[^}]*\bverify\b[^}]*\} from '\.\.\/\.\.\/shared\/signature\.js'/.test(s),
      );
      check(`${f} computes no HMAC of its own`, !/createHmac|timingSafeEqual|\bsign\(/.test(s));
    }

    // Behaviour: every candidate compared, the matching one first or last.
    const spy = vi.mocked(realCrypto.timingSafeEqual);
    const secret = secretOf(randomBytes(24));
    const now = Math.floor(Date.now() / 1000);
    const id = 'evt_constanttime000000000000';
    const payload = Buffer.from('{"type":"transfer.completed"}');
    const good = sign(secret, id, now, payload);
    const decoys = Array.from({ length: 4 }, () => `v1,${randomBytes(32).toString('base64')}`);
    for (const [what, sigs] of [
      ['match first', [good, ...decoys]],
      ['match last', [...decoys, good]],
      ['no match', decoys],
    ] as const) {
      spy.mockClear();
      const r = verify(secret, { 'webhook-id': id, 'webhook-timestamp': String(now), 'webhook-signature': sigs.join(' ') }, payload, now);
      check(`${what}: ${what === 'no match' ? 'refused' : 'accepted'}`, r.ok === (what !== 'no match'));
      check(
        `${what}: timingSafeEqual called for each of the ${sigs.length} candidates (was ${spy.mock.calls.length})`,
        spy.mock.calls.length === sigs.length,
      );
      check(
        `${what}: always on equal lengths`,
        spy.mock.calls.every(([a, b]) => (a as Buffer).length === (b as Buffer).length),
      );
    }
    // Other lengths: refused, no throw, timingSafeEqual never reached with them.
    for (const n of [0, 1, 31, 33, 64, 4096]) {
      spy.mockClear();
      let r: ReturnType<typeof verify> | undefined;
      let threw = '';
      try {
        r = verify(
          secret,
          { 'webhook-id': id, 'webhook-timestamp': String(now), 'webhook-signature': `v1,${randomBytes(n).toString('base64')}` },
          payload,
          now,
        );
      } catch (err) {
        threw = (err as Error).message;
      }
      check(
        `${n}-byte signature: refused without throwing (${threw || (r?.ok ? 'accepted' : r?.reason)})`,
        !threw && r?.ok === false && r.reason === 'no signature matches',
      );
      check(`${n}-byte signature: timingSafeEqual not called`, spy.mock.calls.length === 0);
    }
    // And through the CLI: exit 1, one line.
    const dir = tempIn(root, 'ct-');
    writeFileSync(join(dir, 'body.json'), payload);
    registerSecret(secret);
    for (const sig of [
      'v1,AAAA',
      `v1,${randomBytes(64).toString('base64')}`,
      `v1,${Buffer.from(good.slice(3), 'base64').subarray(0, 31).toString('base64')}`,
    ]) {
      const r = await pay(
        [
          'webhooks',
          'verify',
          '--payload',
          join(dir, 'body.json'),
          '--id',
          id,
          '--timestamp',
          String(now),
          '--signature',
          sig,
          '--secret',
          secret,
        ],
        { env: cleanEnv(), secrets: [secret] },
      );
      check(
        `CLI ${sig.slice(0, 12)}…: exit 1, "invalid: no signature matches" (${r.code} ${r.stderr.trim().slice(0, 100)})`,
        r.code === 1 && r.stderr === 'invalid: no signature matches\n' && r.leaks.length === 0,
      );
    }
    const failed = checks.filter(([, ok]) => !ok).map(([w]) => w);
    verifyTally.tried += checks.length;
    verifyTally.passed += checks.length - failed.length;
    verifyTally.extra.constant_time_checks = checks.length;
    expect(failed).toEqual([]);
  }, 120_000);
});

// ---------------------------------------------------------------------------------------------
// webhooks.listen: replays to a running listener

interface ListenProcess {
  child: ChildProcessWithoutNullStreams;
  url: string;
  out: () => string;
  err: () => string;
  stop: () => Promise<number | null>;
}

async function spawnListen(secret: string, extra: string[] = [], skipDuplicates = true): Promise<ListenProcess> {
  // --skip-duplicates: these are the replay attacks on a receiver that accepts each webhook-id once
  // (by default listen forwards every delivery, marking repeats: test/unit/commands/webhooks.test.ts,
  // test/reliability/attack-listen-repeats.test.ts). A hosted base URL: nothing is asked of it.
  const { child, out, err, closed } = spawnPay(
    ['webhooks', 'listen', '--port', '0', '--json', ...(skipDuplicates ? ['--skip-duplicates'] : []), ...extra],
    cleanEnv({ PAY_WEBHOOK_SECRET: secret, PAY_BASE_URL: 'https://api.example.com/v1/' }),
  );
  const ready = await until('pay webhooks listen to start', () => /Ready, listening on (\S+)/.test(err()) || child.exitCode !== null, {
    seen: err,
  }).then(
    () => child.exitCode === null,
    () => false,
  );
  if (!ready) {
    child.kill('SIGKILL');
    throw new Error(`pay webhooks listen did not start:\n${err()}`);
  }
  const url = /Ready, listening on (http:\/\/\S+?)[,\s]/.exec(err())![1]!;
  return {
    child,
    url,
    out,
    err,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      // 'close': the last of its output read too (the "Stopped." line).
      const code = await closed;
      clearTimeout(t);
      return code;
    },
  };
}

async function post(url: string, headers: Record<string, string>, body: Buffer): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  await res.arrayBuffer();
  return res.status;
}

const listenTally: Counts & { extra: Record<string, number | string> } = {
  tried: 0,
  passed: 0,
  lost: 0,
  duplicated: 0,
  leaked: 0,
  extra: { seed: SEED },
};
let listenStarted = 0;

describe('webhooks.listen', () => {
  const listeners: ListenProcess[] = [];
  const servers: Server[] = [];
  beforeAll(() => {
    listenStarted = Date.now();
  });
  afterAll(async () => {
    for (const l of listeners) await l.stop();
    for (const s of servers) await new Promise((r) => s.close(r));
    await record(
      'webhooks.listen',
      'replayed webhook-ids to a running pay webhooks listen (also concurrent, while forwarding)',
      listenTally,
      listenStarted,
    );
  });

  it(`${LISTEN_IDS} webhook-ids delivered 1-4 times each among bad deliveries, in random order: each accepted once, the rest refused and logged (seed ${SEED})`, async () => {
    const secretBytes = randomBytes(24);
    const secret = secretOf(secretBytes);
    registerSecret(secret);
    const l = await spawnListen(secret);
    listeners.push(l);
    const now = Math.floor(Date.now() / 1000);
    // A plan: per id, some valid copies (re-signed, headers in other case, among decoys) and some bad ones.
    const planArb = fc.array(
      fc.record({
        copies: fc.array(fc.constantFrom('same', 'resigned', 'header-case', 'among-decoys'), { minLength: 1, maxLength: 4 }),
        bad: fc.array(
          fc.constantFrom<Kind>('wrong-secret', 'tampered-body', 'tampered-signature', 'stale', 'future', 'decoys-only', 'other-length'),
          { maxLength: 2 },
        ),
        raw: rawArb,
      }),
      { minLength: LISTEN_IDS, maxLength: LISTEN_IDS },
    );
    const [plan] = fc.sample(planArb, { numRuns: 1, seed: SEED + 2 });
    const [order] = fc.sample(fc.nat(), { numRuns: 1, seed: SEED + 3 });
    type Send = { id: string; valid: boolean; what: string; headers: Record<string, string>; body: Buffer };
    const sends: Send[] = [];
    plan!.forEach((p, n) => {
      const id = `evt_listen${String(n).padStart(6, '0')}${randomBytes(6).toString('hex')}`;
      const body = Buffer.from(JSON.stringify({ id, type: 'transfer.completed', n }));
      const base = { ...p.raw, id, body: new Uint8Array(body), secret: new Uint8Array(secretBytes) };
      p.copies.forEach((c, k) => {
        const kind: Kind = c === 'header-case' ? 'header-case' : c === 'among-decoys' ? 'among-decoys' : 'valid';
        // A re-signed copy: another timestamp inside the tolerance, the same webhook-id.
        const d = build({ ...base, kind, inside: c === 'resigned' ? (p.raw.inside + 37 * (k + 1)) % TOL : p.raw.inside }, now, 60);
        sends.push({ id, valid: true, what: c, headers: d.headers, body: d.body });
      });
      for (const kind of p.bad) {
        const d = build({ ...base, kind }, now, 60);
        sends.push({ id, valid: false, what: kind, headers: d.headers, body: d.body });
      }
    });
    // A shuffle from the seed.
    let s = order! + 1;
    for (let i = sends.length - 1; i > 0; i--) {
      s = (s * 1103515245 + 12345) % 2 ** 31;
      const j = s % (i + 1);
      [sends[i], sends[j]] = [sends[j]!, sends[i]!];
    }
    const statuses = await pool(sends, 8, async (x) => post(l.url, x.headers, x.body));
    // Every line is written before its answer is sent: wait for the pipes to bring them all (one
    // stdout line per id, one stderr line per refusal and per replay), not for a guessed pause.
    const idCount = new Set(sends.map((x) => x.id)).size;
    const replayCount = sends.filter((x) => x.valid).length - idCount;
    await until(
      'listen to print every delivery, refusal and replay',
      () =>
        l.out().split('\n').filter(Boolean).length >= idCount &&
        (l.err().match(/ rejected /g) ?? []).length >= statuses.filter((st) => st === 400).length &&
        (l.err().match(/ duplicate .*replayed webhook-id/g) ?? []).length >= replayCount,
      { seen: () => `${l.out()}\n${l.err()}` },
    );
    // Accepted = printed on stdout (NDJSON): once per id. A valid copy of an accepted id is
    // acknowledged (200, "duplicate" on stderr) but neither printed nor forwarded again.
    const printed = l
      .out()
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { webhook_id: string }).webhook_id);
    const accepted = new Map<string, number>();
    for (const id of printed) accepted.set(id, (accepted.get(id) ?? 0) + 1);
    const failures: string[] = [];
    let passed = 0;
    sends.forEach((x, i) => {
      const st = statuses[i]!;
      if (!x.valid && st !== 400) failures.push(`${x.id} ${x.what}: ${st}, want 400`);
      else if (x.valid && st !== 200) failures.push(`${x.id} ${x.what}: ${st}, want 200 (accepted or acknowledged duplicate)`);
    });
    const ids = [...new Set(sends.map((x) => x.id))];
    let lost = 0;
    let duplicated = 0;
    for (const id of ids) {
      const n = accepted.get(id) ?? 0;
      if (n === 0) lost++;
      if (n > 1) duplicated += n - 1;
      if (n !== 1) failures.push(`${id}: accepted ${n} times`);
    }
    // Every accepted delivery printed once (NDJSON), every refusal and every duplicate logged once on stderr.
    if (printed.length !== ids.length || new Set(printed).size !== ids.length)
      failures.push(`printed ${printed.length} events (${new Set(printed).size} distinct), want ${ids.length}`);
    const refused = statuses.filter((st) => st === 400).length;
    const logged = l
      .err()
      .split('\n')
      .filter((line) => / rejected /.test(line));
    if (logged.length !== refused) failures.push(`logged ${logged.length} refusals, answered ${refused}`);
    const replays = sends.filter((x) => x.valid).length - ids.length;
    const loggedReplays = l
      .err()
      .split('\n')
      .filter((line) => / duplicate .*replayed webhook-id/.test(line)).length;
    if (loggedReplays !== replays) failures.push(`logged ${loggedReplays} replays, want ${replays}`);
    const leaked = [l.out(), l.err()].filter((t) => t.includes(secret) || t.includes(secret.slice(6))).length;
    // A delivery passed when it got its answer: a bad one 400; a valid one 200 (the first, or
    // an acknowledged replay), its id accepted (printed) exactly once.
    sends.forEach((x, i) => {
      const st = statuses[i]!;
      if (x.valid ? accepted.get(x.id) === 1 && st === 200 : st === 400) passed++;
    });
    listenTally.tried += sends.length;
    listenTally.passed += passed;
    listenTally.lost += lost;
    listenTally.duplicated += duplicated;
    listenTally.leaked += leaked;
    listenTally.extra.ids = ids.length;
    listenTally.extra.replays = replays;
    listenTally.extra.bad_deliveries = sends.filter((x) => !x.valid).length;
    expect(failures.slice(0, 30), `seed ${SEED}`).toEqual([]);
    expect(leaked).toBe(0);
    expect(stackTrace(l.err())).toBeUndefined();
    // It stops cleanly.
    expect(await l.stop()).toBe(0);
    expect(l.err()).toMatch(/Stopped\.\n$/);
  }, 300_000);

  it(`${RACE_IDS} webhook-ids each delivered 4 times at once while forwarding (slow target): forwarded and accepted once`, async () => {
    const secret = secretOf(randomBytes(24));
    registerSecret(secret);
    const got: string[] = [];
    const port = await slowTarget(got, servers);
    const l = await spawnListen(secret, ['--forward-to', `http://127.0.0.1:${port}/hooks`]);
    listeners.push(l);
    const now = Math.floor(Date.now() / 1000);
    const failures: string[] = [];
    let passed = 0;
    let duplicated = 0;
    let lost = 0;
    await pool(
      Array.from({ length: RACE_IDS }, (_, n) => n),
      2,
      async (n) => {
        const id = `evt_race${String(n).padStart(6, '0')}${randomBytes(6).toString('hex')}`;
        const body = Buffer.from(JSON.stringify({ id, type: 'card.frozen' }));
        const headers = { 'webhook-id': id, 'webhook-timestamp': String(now), 'webhook-signature': sign(secret, id, now, body) };
        // Four copies at once: one is forwarded (200 after the slow target answers), the others
        // arrive while it is in flight (409, retry later); a copy after that is acknowledged (200), not forwarded.
        const statuses = await Promise.all([0, 1, 2, 3].map(() => post(l.url, headers, body)));
        const later = await post(l.url, headers, body);
        const ok = statuses.filter((st) => st === 200).length;
        const forwarded = got.filter((g) => g === id).length;
        if (forwarded > 1) duplicated += forwarded - 1;
        if (forwarded === 0) lost++;
        if (ok !== 1 || forwarded !== 1 || later !== 200 || statuses.some((st) => st !== 200 && st !== 409))
          failures.push(`${id}: answers ${statuses.join(', ')} then ${later}, forwarded ${forwarded} times`);
        else passed++;
      },
    );
    listenTally.tried += RACE_IDS;
    listenTally.passed += passed;
    listenTally.lost += lost;
    listenTally.duplicated += duplicated;
    listenTally.extra.concurrent_ids = RACE_IDS;
    expect(failures).toEqual([]);
    expect(await l.stop()).toBe(0);
  }, 300_000);

  it(`by default, ${RACE_IDS} webhook-ids each delivered 4 times at once and once more while forwarding: every copy forwarded once, numbered 1-5`, async () => {
    const secret = secretOf(randomBytes(24));
    registerSecret(secret);
    const got: string[] = [];
    const port = await slowTarget(got, servers);
    const l = await spawnListen(secret, ['--forward-to', `http://127.0.0.1:${port}/hooks`], false);
    listeners.push(l);
    const now = Math.floor(Date.now() / 1000);
    const failures: string[] = [];
    let passed = 0;
    let lost = 0;
    let duplicated = 0;
    const ids: string[] = [];
    await pool(
      Array.from({ length: RACE_IDS }, (_, n) => n),
      2,
      async (n) => {
        const id = `evt_every${String(n).padStart(6, '0')}${randomBytes(6).toString('hex')}`;
        ids.push(id);
        const body = Buffer.from(JSON.stringify({ id, type: 'card.frozen' }));
        const headers = { 'webhook-id': id, 'webhook-timestamp': String(now), 'webhook-signature': sign(secret, id, now, body) };
        const statuses = [...(await Promise.all([0, 1, 2, 3].map(() => post(l.url, headers, body)))), await post(l.url, headers, body)];
        const forwarded = got.filter((g) => g === id).length;
        if (forwarded < 5) lost += 5 - forwarded;
        if (forwarded > 5) duplicated += forwarded - 5;
        if (forwarded !== 5 || statuses.some((st) => st !== 200))
          failures.push(`${id}: answers ${statuses.join(', ')}, forwarded ${forwarded} times`);
        else passed++;
      },
    );
    // Every line was written before its answer was sent: wait for the pipe to bring them all.
    await until(`listen to print ${5 * RACE_IDS} lines`, () => l.out().split('\n').filter(Boolean).length >= 5 * RACE_IDS, { seen: l.out });
    const printed = l
      .out()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { webhook_id: string; repeat: number; forward: { status: number } });
    for (const id of ids) {
      const mine = printed.filter((d) => d.webhook_id === id);
      if (
        mine
          .map((d) => d.repeat)
          .sort((a, b) => a - b)
          .join() !== '1,2,3,4,5' ||
        mine.some((d) => d.forward.status !== 204)
      )
        failures.push(`${id}: printed ${JSON.stringify(mine.map((d) => [d.repeat, d.forward.status]))}`);
    }
    listenTally.tried += RACE_IDS;
    listenTally.passed += passed;
    listenTally.lost += lost;
    listenTally.duplicated += duplicated;
    listenTally.extra.every_copy_ids = RACE_IDS;
    expect(failures).toEqual([]);
    expect(await l.stop()).toBe(0);
  }, 300_000);
});
