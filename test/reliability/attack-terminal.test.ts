// Outside attack, class 6: nothing from the service or a file drives the terminal. Generated
// strings (fast-check) carrying every class of control and format character (C0, ESC sequences:
// OSC window titles, OSC 8 hyperlinks, clears, cursor moves; DEL; C1 and 8-bit CSI/OSC; bidi
// overrides and isolates; line separators; zero-width and other invisible format characters;
// tag characters; lone surrogates; a newline and tab that would fake a table row) go into
// customer names, e-mails, ids, object keys and addresses answered by a hostile loopback server,
// into API error messages, problem details and field errors, into a --data file, and into the
// webhook-id and type of deliveries to a running `pay webhooks listen`. For each, the built pay
// runs as a child process and:
//   - text modes (table, get view, tsv, error/field/hint lines, listen lines): no raw control,
//     bidi or invisible format character on stdout or stderr, the structure intact (one line per
//     row, one tab between cells), and the data still all there: decoding the escapes gives back
//     the very string that was served (the generated text has no backslash of its own);
//   - --json / -o ndjson (and --json errors): parsed, the data is exactly what was served.
// Plus the escaping function itself over arbitrary Unicode (thousands of strings, in-process).
//
// Reproduce: PAY_FUZZ_SEED=<seed> npx vitest run --config test/vitest.config.ts test/reliability/attack-terminal.test.ts
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeMultiline, escapeText } from '../../src/lib/escape.js';
import { cleanEnv, count, FULL, pay, pool, record, spawnPay, stackTrace, tempRoot, type Counts } from './helpers.js';
import { until } from '../helpers/wait.js';

const SEED = process.env.PAY_FUZZ_SEED ? Number(process.env.PAY_FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
/** Child-process runs per class; each run carries STRINGS strings. Full: 50 × 20 = 1,000 strings per class. */
const RUNS = count(2, 50);
const STRINGS = count(5, 20);
/** Classes with one string per pay run (errors, files). */
const SINGLES = count(6, 1000);
const MODULE_RUNS = count(2000, 20_000);
const PARALLEL = 3;
/** Per test: the full counts run pay a thousand times or more. */
const LONG = FULL ? 3_600_000 : 300_000;
const KEY = 'sk_test_Tq4Wm8Zr2Kx6Pn0Vb3Yh7Jc5Ld9Fs1Ga';

// ---------------------------------------------------------------------------------------------
// The attack strings and the oracle (written here, independently of src/io/escape.ts)

const range = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i));
/** Every character that must never reach a terminal raw, by class. */
const CLASSES: Record<string, string[]> = {
  c0: range(0x00, 0x1f),
  del: ['\x7f'],
  c1: range(0x80, 0x9f),
  bidi: ['\u061c', '\u200e', '\u200f', ...range(0x202a, 0x202e), ...range(0x2066, 0x2069)],
  separators: ['\u2028', '\u2029'],
  invisible: ['\u180e', '\u200b', ...range(0x2060, 0x2064), ...range(0x206a, 0x206f), '\ufeff', '\ufff9', '\ufffa', '\ufffb'],
  tags: range(0xe0000, 0xe007f),
  surrogates: ['\ud800', '\udbff', '\udc00', '\udfff'],
};
const SEQUENCES = [
  '\x1b]0;pwned\x07', // OSC window title (BEL)
  '\x1b]2;pwned\x1b\\', // OSC window title (ST)
  '\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\', // OSC 8 hyperlink
  '\x1b[2J\x1b[H', // clear screen, cursor home
  '\x1bc', // full reset
  '\x1b[1A\x1b[2K', // up one line, erase it
  '\x1b[31mred\x1b[0m',
  '\x9b2J', // 8-bit CSI
  '\x9d0;pwned\x9c', // 8-bit OSC … ST
  '\r\ncus_fake0000000000000000000\tFake\tRow\n', // a fake row
  '\u202eevil\u202c',
  '\u2067hidden\u2069',
];
const DANGEROUS = Object.values(CLASSES).flat();
/** Printable text, no backslash (so that decoding the escapes is exact). */
const PLAIN = [
  ...'abcdefxyzABCXYZ0189 -_.,:;@#/()[]{}\'"`~!?=+*&%$|<>',
  'é',
  'ß',
  'Ω',
  '漢',
  '字',
  '😀',
  '👩‍💻',
  'ﬁ',
  '\u200d',
  '\u200c',
  '\ufe0f',
];

const piece = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...PLAIN) },
  { weight: 2, arbitrary: fc.constantFrom(...DANGEROUS) },
  { weight: 1, arbitrary: fc.constantFrom(...SEQUENCES) },
);
/** A string with at least one dangerous character or sequence in it. */
const hostile = fc
  .tuple(
    fc.array(piece, { maxLength: 6 }),
    fc.oneof(fc.constantFrom(...DANGEROUS), fc.constantFrom(...SEQUENCES)),
    fc.array(piece, { maxLength: 6 }),
  )
  .map(([a, d, b]) => `${a.join('')}${d}${b.join('')}`);

const UNSAFE_OUT = new RegExp(
  `[${[...DANGEROUS]
    .filter((c) => c !== '\n' && c !== '\t')
    .map((c) => `\\u{${c.codePointAt(0)!.toString(16)}}`)
    .join('')}]`,
  'u',
);
const UNSAFE_ANY = new RegExp(`[${DANGEROUS.map((c) => `\\u{${c.codePointAt(0)!.toString(16)}}`).join('')}]`, 'u');

/** The first raw dangerous character in text (newline and tab allowed: they are the output's own structure). */
function rawUnsafe(text: string): string | undefined {
  const m = UNSAFE_OUT.exec(text);
  return m
    ? `U+${m[0].codePointAt(0)!.toString(16).padStart(4, '0')} at ${m.index}: ${JSON.stringify(text.slice(Math.max(0, m.index - 20), m.index + 20))}`
    : undefined;
}

/** Undoes the documented escapes: \t \n \r \xhh \uhhhh \u{h…}. */
function decode(text: string): string {
  return text.replace(/\\(x[0-9a-f]{2}|u\{[0-9a-f]+\}|u[0-9a-f]{4}|[tnr])/g, (_, e: string) => {
    if (e === 't') return '\t';
    if (e === 'n') return '\n';
    if (e === 'r') return '\r';
    if (e.startsWith('u{')) return String.fromCodePoint(parseInt(e.slice(2, -1), 16));
    return String.fromCharCode(parseInt(e.slice(1), 16));
  });
}

/** As String.prototype.toWellFormed (ES2024): lone surrogates become U+FFFD, as when the text is sent as UTF-8. */
const wellFormed = (s: string): string => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

/** Messages keep to one line by escaping their line breaks (\r, \n) like any control character: decoding gives the text back. */
const asMessage = (s: string): string => s;

// ---------------------------------------------------------------------------------------------
// The hostile service: answers whatever the test sets for the next requests

interface Answer {
  status: number;
  body: unknown;
  contentType?: string;
}
let server: Server;
let baseUrl: string;
/** path (or `path?<email filter>`) → answer; each run sets its own (so parallel runs do not mix). */
const answers = new Map<string, Answer>();

function send(res: ServerResponse, a: Answer): void {
  const text = typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
  res.writeHead(a.status, {
    'content-type': a.contentType ?? (a.status >= 400 ? 'application/problem+json' : 'application/json'),
    'request-id': 'req_hostile',
  });
  res.end(text);
}

let root: string;
const tallies: Record<string, Counts & { extra: Record<string, number | string> }> = {};
const tally = (cls: string) => (tallies[cls] ??= { tried: 0, passed: 0, lost: 0, duplicated: 0, leaked: 0, extra: { seed: SEED } });
const started = Date.now();

beforeAll(async () => {
  root = tempRoot('attack-terminal');
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      // Lists are told apart by their email filter, objects by their id: runs go in parallel.
      const email = url.searchParams.get('email');
      const a = answers.get(email ? `${url.pathname}?${email}` : url.pathname);
      if (!a) return send(res, { status: 404, body: { code: 'not_found', title: 'no answer set' } });
      send(res, a);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => server?.close(() => r()));
  const all: Counts & { extra: Record<string, number | string> } = {
    tried: 0,
    passed: 0,
    lost: 0,
    duplicated: 0,
    leaked: 0,
    extra: { seed: SEED },
  };
  for (const [cls, t] of Object.entries(tallies)) {
    all.tried += t.tried;
    all.passed += t.passed;
    all.leaked += t.leaked;
    all.extra[cls] = `${t.passed}/${t.tried}`;
  }
  if (all.tried > 0) {
    await record(
      'attack.terminal',
      'control, bidi and invisible characters from the service, files and deliveries: shown escaped in text, exact in JSON',
      all,
      started,
    );
  }
});

const env = () => cleanEnv({ PAY_BASE_URL: baseUrl, PAY_API_KEY: KEY, PAY_TENANT_ID: 'biz_1', PAY_MAX_RETRIES: '0' });
let runNo = 0;

/** n generated hostile strings (deterministic per seed and run). */
function strings(n: number, salt: number): string[] {
  return fc.sample(hostile, { numRuns: n, seed: SEED + salt });
}

function customer(i: number, name: string, other: string): Record<string, unknown> {
  return {
    id: `cus_${String(i).padStart(24, '0')}`,
    object: 'customer',
    first_name: name,
    last_name: other,
    email: `${other}@example.com`,
    type: name,
    kyc_status: other,
    created_at: '2026-11-20T10:00:00.000Z',
    address: { address_line1: other, city: name, country: 'GB' },
  };
}

/** Checks a text output; counts a string as passed when every check on it held. */
function expectSafe(label: string, text: string): void {
  expect(rawUnsafe(text), `${label}: a raw control/format character reached the output`).toBeUndefined();
  expect(stackTrace(text), label).toBeUndefined();
}

/**
 * One POST over a raw socket: header values go out as Latin-1 bytes (an HTTP client would send
 * C1 characters as UTF-8), so the listener reads U+0080–U+009F in the webhook-id. Returns the status.
 */
function rawPost(url: URL, headers: Record<string, string>, body: string): Promise<number> {
  const bytes = Buffer.from(body, 'utf8');
  const head = [
    `POST ${url.pathname} HTTP/1.1`,
    `host: ${url.host}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    `content-length: ${bytes.length}`,
    'connection: close',
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (answer += d));
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
    socket.end(Buffer.concat([Buffer.from(head, 'latin1'), bytes]));
  });
}

describe('attack.terminal', () => {
  it('the escaping function: nothing dangerous survives, safe text is unchanged, and the escapes decode back exactly', () => {
    const t = tally('module');
    const noBackslash = fc.string({ unit: 'binary', maxLength: 40 }).map((s) => s.replace(/\\/g, '/'));
    fc.assert(
      fc.property(fc.oneof(noBackslash, hostile), (s) => {
        t.tried++;
        const one = escapeText(s);
        const multi = escapeMultiline(s);
        expect(UNSAFE_ANY.test(one)).toBe(false);
        expect(rawUnsafe(multi)).toBeUndefined();
        expect(decode(one)).toBe(s);
        expect(decode(multi)).toBe(s);
        if (!UNSAFE_ANY.test(s)) expect(one).toBe(s);
        t.passed++;
      }),
      { numRuns: MODULE_RUNS, seed: SEED },
    );
  });

  it(
    'lists: tsv, table, --json and -o ndjson',
    async () => {
      const t = tally('lists');
      await pool(
        Array.from({ length: RUNS }, () => ++runNo),
        PARALLEL,
        async (run) => {
          const names = strings(STRINGS, run * 2);
          const others = strings(STRINGS, run * 2 + 1);
          const items = names.map((n, i) => customer(i, n, others[i]!));
          const email = `run${run}@example.com`;
          answers.set(`/v1/customers?${email}`, { status: 200, body: { object: 'list', data: items, has_more: false, next_cursor: null } });
          const list = ['customers', 'list', '--email', email];
          const fields = '--fields=id,first_name,last_name,email,kyc_status,address.city';
          const [tsv, table, json, ndjson] = [
            await pay([...list, fields], { env: env() }),
            await pay([...list, '-o', 'table', fields], { env: env() }),
            await pay([...list, '--json'], { env: env() }),
            await pay([...list, '-o', 'ndjson'], { env: env() }),
          ];
          t.tried += items.length;
          for (const x of [tsv, table, json, ndjson]) expect(x.code, `${x.args.join(' ')}\n${x.stderr}`).toBe(0);
          // tsv: a header and one line per item, six cells each, every cell decodes to what was served.
          expectSafe('tsv', tsv.stdout + tsv.stderr);
          const lines = tsv.stdout.replace(/\n$/, '').split('\n');
          expect(lines).toHaveLength(items.length + 1);
          lines.slice(1).forEach((line, i) => {
            const cells = line.split('\t');
            expect(cells).toHaveLength(6);
            expect(cells.map(decode)).toEqual([items[i]!.id, names[i], others[i], `${others[i]}@example.com`, others[i], names[i]]);
          });
          // table: a header and one line per item; each line holds its item's values.
          expectSafe('table', table.stdout + table.stderr);
          const rows = table.stdout.replace(/\n$/, '').split('\n');
          expect(rows).toHaveLength(items.length + 1);
          rows.slice(1).forEach((row, i) => {
            const shown = decode(row);
            for (const v of [items[i]!.id as string, names[i]!, others[i]!]) expect(shown).toContain(v);
          });
          // json and ndjson: exactly the data served.
          expect(JSON.parse(json.stdout)).toEqual(items);
          expect(
            ndjson.stdout
              .trimEnd()
              .split('\n')
              .map((l) => JSON.parse(l)),
          ).toEqual(items);
          t.passed += items.length;
        },
      );
    },
    LONG,
  );

  it(
    'one object: the get view (keys from the data too), tsv and --json',
    async () => {
      const t = tally('get');
      await pool(
        Array.from({ length: RUNS }, () => ++runNo),
        PARALLEL,
        async (run) => {
          const values = strings(STRINGS, run * 3);
          const keys = strings(STRINGS, run * 3 + 1).map((k, i) => `k${i}${k.replace(/\./g, ',')}`);
          const id = `cus_${String(run).padStart(24, '0')}`;
          // The object asked for (pay refuses a get answered with another object's id).
          const obj: Record<string, unknown> = {
            ...customer(0, values[0]!, values[1 % values.length]!),
            id,
            metadata: Object.fromEntries(keys.map((k, i) => [k, values[i]])),
          };
          answers.set(`/v1/customers/${id}`, { status: 200, body: obj });
          const view = await pay(['customers', 'get', id, '-o', 'table'], { env: env() });
          const tsv = await pay(['customers', 'get', id], { env: env() });
          const json = await pay(['customers', 'get', id, '--json'], { env: env() });
          t.tried += values.length;
          for (const x of [view, tsv, json]) expect(x.code, `${x.args.join(' ')}\n${x.stderr}`).toBe(0);
          expectSafe('get view', view.stdout + view.stderr);
          expectSafe('get tsv', tsv.stdout + tsv.stderr);
          // The view: one line per leaf; each metadata line shows its key and value.
          const viewLines = view.stdout.replace(/\n$/, '').split('\n').map(decode);
          for (const [i, k] of keys.entries())
            expect(viewLines.some((l) => l.startsWith(`metadata.${k}`) && l.includes(values[i]!))).toBe(true);
          const [head, line, ...rest] = tsv.stdout.replace(/\n$/, '').split('\n');
          expect(rest).toEqual([]);
          const heads = head!.split('\t').map(decode);
          const cells = line!.split('\t').map(decode);
          expect(heads).toHaveLength(cells.length);
          for (const [i, k] of keys.entries()) expect(cells[heads.indexOf(`metadata.${k}`)]).toBe(values[i]);
          expect(JSON.parse(json.stdout)).toEqual(obj);
          t.passed += values.length;
        },
      );
    },
    LONG,
  );

  it(
    'API errors: message, problem details, field errors, a text body; one line each, and exact under --json',
    async () => {
      const t = tally('errors');
      const run = ++runNo;
      const texts = strings(SINGLES, run * 5);
      await pool(texts, PARALLEL, async (s, i) => {
        {
          t.tried++;
          const errors = [{ field: s, message: texts[(i + 1) % texts.length]!, code: 'invalid' }];
          const problem = { type: 'about:blank', title: 'x', status: 422, code: `bad_${i}`, detail: s, errors, request_id: 'req_x' };
          const id = `cus_e${String(i).padStart(23, '0')}`;
          answers.set(
            `/v1/customers/${id}`,
            i % 3 === 2 ? { status: 400, body: s, contentType: 'text/plain' } : { status: 422, body: problem },
          );
          const text = await pay(['customers', 'get', id], { env: env() });
          expect(text.code, text.stderr).toBe(1);
          expect(text.stdout).toBe('');
          expectSafe('error lines', text.stderr);
          const lines = text.stderr.replace(/\n$/, '').split('\n');
          expect(lines[0]).toMatch(/^error: /);
          if (i % 3 === 2) {
            expect(lines).toHaveLength(1);
            // A text body is bytes: a lone surrogate went out as U+FFFD.
            expect(decode(lines[0]!)).toContain(asMessage(wellFormed(s).slice(0, 200)));
          } else {
            // error, one field line, nothing else: no line of the data's own.
            expect(lines).toHaveLength(2);
            expect(decode(lines[0]!)).toContain(asMessage(s));
            expect(lines[1]!.startsWith('  ')).toBe(true);
            expect(decode(lines[1]!)).toContain(`${s}: ${asMessage(errors[0]!.message)}`);
            const json = await pay(['customers', 'get', id, '--json'], { env: env() });
            expect(json.code).toBe(1);
            const e = (JSON.parse(json.stderr) as { error: { message: string; errors: unknown } }).error;
            expect(e.message).toContain(s);
            expect(e.errors).toEqual(errors);
          }
          t.passed++;
        }
      });
    },
    LONG,
  );

  it(
    'file contents: a --data file that is not JSON is quoted escaped in a one-line usage error',
    async () => {
      const t = tally('files');
      const texts = strings(SINGLES, 7777);
      await pool(texts, PARALLEL, async (s, i) => {
        t.tried++;
        const file = join(root, `data-${i}.json`);
        writeFileSync(file, `{"first_name": ${s}`);
        const r = await pay(['customers', 'create', '--data', `@${file}`], { env: env() });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stdout).toBe('');
        expectSafe('--data error', r.stderr);
        expect(r.stderr.replace(/\n$/, '').split('\n')).toHaveLength(1);
        t.passed++;
      });
    },
    LONG,
  );

  it(
    'webhooks listen: hostile webhook-ids (C1 in the header) and event types; lines escaped, --json exact',
    async () => {
      const t = tally('listen');
      const secretBytes = Buffer.alloc(24, 7);
      const secret = `whsec_${secretBytes.toString('base64')}`;
      const sign = (id: string, ts: number, body: string) =>
        `v1,${createHmac('sha256', secretBytes).update(`${id}.${ts}.`).update(body).digest('base64')}`;
      for (const json of [false, true]) {
        // A hosted base URL: listen asks it nothing (and takes no emulator's webhook URL on this machine).
        const l = spawnPay(
          ['webhooks', 'listen', '--port', '0', ...(json ? ['--json'] : [])],
          cleanEnv({ PAY_WEBHOOK_SECRET: secret, PAY_BASE_URL: 'https://api.example.com/v1/' }),
        );
        try {
          await until('listen to start', () => /Ready, listening on (http:\/\/\S+?)[,\s]/.test(l.err()) || l.child.exitCode !== null, {
            seen: l.err,
          });
          if (l.child.exitCode !== null) throw new Error(`listen did not start:\n${l.err()}`);
          const url = new URL(/Ready, listening on (http:\/\/\S+?)[,\s]/.exec(l.err())![1]!);
          const types = strings(RUNS * STRINGS, json ? 4242 : 4243);
          // A header carries bytes: the C1 range and printable Latin-1 (Node reads header values as Latin-1).
          const ids = fc.sample(fc.array(fc.constantFrom(...range(0x80, 0x9f), ...'abcXYZ019_-'), { minLength: 1, maxLength: 20 }), {
            numRuns: types.length,
            seed: SEED + (json ? 1 : 2),
          });
          const sent: Array<{ id: string; type: string; event: unknown; valid: boolean }> = [];
          for (const [i, type] of types.entries()) {
            const id = `evt_${i}_${ids[i]!.join('')}`;
            const event = { id, type, created_at: '2026-11-20T10:00:00.000Z', data: { note: type } };
            const body = JSON.stringify(event);
            const ts = Math.floor(Date.now() / 1000);
            const valid = i % 4 !== 3;
            const status = await rawPost(
              url,
              {
                'content-type': 'application/json',
                'webhook-id': id,
                'webhook-timestamp': String(ts),
                'webhook-signature': valid ? sign(id, ts, body) : 'v1,AAAA',
              },
              body,
            );
            expect(status).toBe(valid ? 200 : 400);
            sent.push({ id, type, event, valid });
          }
          const accepted = sent.filter((x) => x.valid);
          await until(
            'listen to print a line for every event',
            () =>
              l.out().split('\n').filter(Boolean).length >= accepted.length &&
              (l.err().match(/ rejected /g) ?? []).length >= sent.length - accepted.length,
            { seen: () => `${l.out()}\n${l.err()}` },
          );
          t.tried += sent.length;
          expectSafe('listen stderr', l.err());
          const out = l.out().replace(/\n$/, '').split('\n');
          expect(out).toHaveLength(accepted.length);
          if (json) {
            expect(out.map((x) => JSON.parse(x).event)).toEqual(accepted.map((x) => x.event));
            expect(out.map((x) => JSON.parse(x).webhook_id)).toEqual(accepted.map((x) => x.id));
          } else {
            expectSafe('listen stdout', l.out());
            out.forEach((line, i) => {
              // `--> <type> [<id>]`: the escaped id holds no space and no "]".
              const m = /^--> (.*) \[([^\]\s]+)\]$/.exec(line);
              expect(m, line).not.toBeNull();
              // Ids and types are cut to 60 characters (then …) in listen lines.
              const cut = (s: string) => (s.length > 60 ? `${s.slice(0, 60)}…` : s);
              expect(decode(m![2]!)).toBe(cut(accepted[i]!.id));
              expect(decode(m![1]!)).toBe(cut(accepted[i]!.type));
            });
          }
          const rejected = l
            .err()
            .split('\n')
            .filter((x) => / rejected /.test(x));
          expect(rejected).toHaveLength(sent.length - accepted.length);
          t.passed += sent.length;
        } finally {
          l.child.kill('SIGTERM');
          await l.closed;
        }
      }
    },
    LONG,
  );
});
