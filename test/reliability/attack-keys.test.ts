// Outside attack, issue 11 classes 1 and 13: keys from untrusted input never reach object
// prototypes or other rows, and odd shapes are usage errors.
//
// attack.keys: a key path with `__proto__`, `constructor` or `prototype` at any depth (spelled
// plainly, quoted, or with a JSON/YAML escape), in every reader: CSV header columns, NDJSON rows,
// JSON-array elements (files and standard input), seed files (YAML and JSON; as a kind, an entry
// name or inside a body), --data (inline, @file, @-) and `pay api -F`. Each run: exit 2, one
// `error:` line naming the input, the place and the key, no stack trace, and nothing sent to the
// recording loopback server (from standard input, which pay reads once: exactly the rows before
// the bad one, each exactly as written). In-process: the one setter and every reader refuse such
// paths, and Object.prototype is left as it was.
//
// attack.shapes: nesting past the limit (objects and arrays, up to 150,000 deep), keys past 256
// characters (up to 100,000), values of the wrong JSON type, CSV headers with a column twice or a
// column that is also another's parent, and odd YAML (alias cycles, !!binary, keys that are
// lists, unknown tags): exit 2 naming the input and the place, never a stack overflow, nothing
// sent (a bulk row too deep or with a huge key stops the run at that row: the rows before it were
// sent, each as written; a wrong-typed bulk row is that row's failure: exit 1, its result names
// the field, the other rows go).
//
// Reproduce a failing vector: PAY_FUZZ_SEED=<seed printed in the failure> npx vitest run … attack-keys
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRows } from '../../src/bulk/input.js';
import { UsageError } from '../../src/lib/errors.js';
import { parseJson, setPath, shapeProblem } from '../../src/lib/safe-json.js';
import { parseSeed } from '../../src/seed/file.js';
import { startRecordingServer, type Recorded, type RecordingServer } from '../helpers/recording-server.js';
import { cleanEnv, count, FULL, pay, pool, record, registerSecret, shown, stackTrace, tempIn, tempRoot, type Run } from './helpers.js';

const KEYS_RUNS = count(32, 1000);
const SHAPES_RUNS = count(32, 1000);
/** A thousand runs of pay take minutes, and far longer on a loaded machine. */
const LONG = FULL ? 3_600_000 : 600_000;
const UNIT_RUNS = count(300, 3000);
const PARALLEL = 4;
const SEED = process.env.PAY_FUZZ_SEED ? Number(process.env.PAY_FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);

const KEY = 'sk_test_AttackKeysAttackKeysAttack12';
const CUS = 'cus_0123456789abcdefghijklmn';
/** What a poisoned key tries to write: another customer, a marker. Neither may reach the server. */
const ATTACKER = 'cus_attackerattackerattacker';
const MARK = 'POLLUTED';
const FORBIDDEN = ['__proto__', 'constructor', 'prototype'] as const;

let server: RecordingServer;
let root: string;
let configDir: string;

beforeAll(async () => {
  registerSecret(KEY);
  root = tempRoot('attack-keys');
  configDir = tempIn(root, 'config-');
  server = await startRecordingServer({ status: 201, body: { id: 'acc_0123456789abcdefghijklmn', object: 'account' } });
});
afterAll(async () => {
  await server?.close();
});

// ---------------------------------------------------------------------------------------------
// Cases: what to run, and what must hold

interface Case {
  label: string;
  argv: string[];
  stdin?: string;
  code: number;
  /** Substrings the one `error:` line must hold (the input, the place, the key). */
  says: string[];
  /** What the server may have received: undefined when right, else why not. */
  sent: (reqs: Recorded[]) => string | undefined;
  /** More checks on the run (a bulk row's result), undefined when right. */
  also?: (r: Run) => string | undefined;
}

/** The body pay sends for good row i (accounts create --type savings). */
const goodBody = (i: number) => ({ customer_id: CUS, currency: 'USD', nickname: `r${i}`, type: 'savings' });
const goodRow = (i: number) => JSON.stringify({ customer_id: CUS, currency: 'USD', nickname: `r${i}` });

const nothingSent = (reqs: Recorded[]): string | undefined =>
  reqs.length === 0 ? undefined : `${reqs.length} request(s) reached the server: ${reqs[0]!.body.slice(0, 200)}`;

/** Exactly these good rows, each exactly as written (nothing merged in from another row). */
const exactly =
  (rows: number[]) =>
  (reqs: Recorded[]): string | undefined => {
    const got = reqs.map((q) => q.json as Record<string, unknown>).sort((a, b) => String(a.nickname).localeCompare(String(b.nickname)));
    const want = rows.map(goodBody).sort((a, b) => a.nickname.localeCompare(b.nickname));
    return JSON.stringify(got) === JSON.stringify(want)
      ? undefined
      : `the server received ${JSON.stringify(got).slice(0, 300)}, expected ${JSON.stringify(want).slice(0, 300)}`;
  };

/** A key as JSON text: plain, or with one character written as a \u escape (the parser decodes it). */
function jsonKey(k: string, escapeAt: number | undefined): string {
  if (escapeAt === undefined) return JSON.stringify(k);
  const i = escapeAt % k.length;
  return `"${k.slice(0, i)}\\u${k.charCodeAt(i).toString(16).padStart(4, '0')}${k.slice(i + 1)}"`;
}

/** A key as YAML: plain, single- or double-quoted, or double-quoted with one \x escape. */
function yamlKey(k: string, style: number, escapeAt: number): string {
  switch (style % 4) {
    case 0:
      return k;
    case 1:
      return `'${k}'`;
    case 2:
      return `"${k}"`;
    default: {
      const i = escapeAt % k.length;
      return `"${k.slice(0, i)}\\x${k.charCodeAt(i).toString(16).padStart(2, '0')}${k.slice(i + 1)}"`;
    }
  }
}

/** `{"a":{"b":leaf}}` from a path; the forbidden key spelled as asked. */
function nestJson(path: readonly string[], leaf: string, spell: (k: string) => string): string {
  return path.reduceRight((inner, k) => `{${spell(k)}:${inner}}`, leaf);
}

/** The leaf a poisoned path writes: an attacker's customer and a marker (an object), or a string. */
const leafJson = (asObject: boolean) => (asObject ? JSON.stringify({ customer_id: ATTACKER, nickname: MARK }) : JSON.stringify(ATTACKER));

// ---------------------------------------------------------------------------------------------
// attack.keys

/** Names for the other keys of a path: never one of the file's own (a YAML key twice is an error of its own). */
const OWN = new Set<string>([
  ...FORBIDDEN,
  'customers',
  'accounts',
  'alice',
  'main',
  'customer_id',
  'currency',
  'nickname',
  'type',
  'first_name',
  'last_name',
]);
const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/).filter((n) => !OWN.has(n));
const KEY_READERS = [
  'csv-file',
  'csv-stdin',
  'ndjson-file',
  'ndjson-stdin',
  'json-file',
  'json-stdin',
  'seed-yaml',
  'seed-json',
  'data-inline',
  'data-file',
  'data-stdin',
  'api-field',
] as const;

const keySpecArb = fc.record({
  reader: fc.constantFrom(...KEY_READERS),
  before: fc.array(name, { maxLength: 3 }),
  bad: fc.constantFrom(...FORBIDDEN),
  after: fc.array(name, { maxLength: 2 }),
  leafObject: fc.boolean(),
  escape: fc.option(fc.nat(20), { nil: undefined }),
  yamlStyle: fc.nat(3),
  good: fc.integer({ min: 1, max: 4 }),
  at: fc.nat(4),
  first: fc.boolean(),
  seedLevel: fc.constantFrom('kind', 'name', 'body'),
});
type KeySpec = typeof keySpecArb extends fc.Arbitrary<infer T> ? T : never;

function keyCase(s: KeySpec, dir: string): Case {
  const path = [...s.before, s.bad, ...s.after];
  const dotted = path.join('.');
  const label = `${s.reader} ${dotted}${s.escape !== undefined ? ` (escaped at ${s.escape})` : ''}`;
  const at = Math.min(s.at, s.good); // the bad row's index among the rows
  const spell = (k: string) => jsonKey(k, (FORBIDDEN as readonly string[]).includes(k) ? s.escape : undefined);
  const poisoned = () => {
    const fields = [`"customer_id":${JSON.stringify(CUS)}`, '"currency":"USD"', `"nickname":"r${at}"`];
    const poison = nestJson(path, leafJson(s.leafObject), spell).slice(1, -1);
    return `{${(s.first ? [poison, ...fields] : [...fields, poison]).join(',')}}`;
  };
  const file = (ext: string, text: string) => {
    const p = join(dir, `input.${ext}`);
    writeFileSync(p, text);
    return p;
  };
  const bulk = ['accounts', 'create', '--type', 'savings', '--from-file'];
  const keyShown = `key ${dotted
    .split('.')
    .slice(0, s.before.length + 1)
    .join('.')}:`;
  switch (s.reader) {
    case 'csv-file':
    case 'csv-stdin': {
      const cols = ['customer_id', 'currency', 'nickname'];
      const header = [...cols];
      header.splice(s.at % 4, 0, dotted);
      const rows = Array.from({ length: s.good }, (_, i) =>
        header
          .map((h) => (h === dotted ? (s.leafObject ? ATTACKER : MARK) : h === 'customer_id' ? CUS : h === 'currency' ? 'USD' : `r${i}`))
          .join(','),
      );
      const text = `${header.join(',')}\n${rows.join('\n')}\n`;
      const where = s.reader === 'csv-file' ? file('csv', text) : 'standard input';
      return {
        label,
        argv: [...bulk, s.reader === 'csv-file' ? where : '-'],
        ...(s.reader === 'csv-stdin' ? { stdin: text } : {}),
        code: 2,
        says: [`${where}: line 1: CSV header: column "${dotted}"`, `"${s.bad}"`],
        sent: nothingSent,
      };
    }
    case 'ndjson-file':
    case 'ndjson-stdin':
    case 'json-file':
    case 'json-stdin': {
      const rows = Array.from({ length: s.good }, (_, i) => goodRow(i < at ? i : i + 1));
      rows.splice(at, 0, poisoned());
      const json = s.reader.startsWith('json');
      const text = json ? `[\n${rows.join(',\n')}\n]\n` : `${rows.join('\n')}\n`;
      const stdin = s.reader.endsWith('stdin');
      const where = stdin ? 'standard input' : file(json ? 'json' : 'ndjson', text);
      const place = json ? `element ${at + 1}` : `line ${at + 1}`;
      return {
        label,
        argv: [...bulk, stdin ? '-' : where],
        ...(stdin ? { stdin: text } : {}),
        code: 2,
        says: [`${where}: ${place}: ${keyShown}`, `"${s.bad}"`],
        // A file is checked whole before any row is sent; standard input is read once, so the
        // rows before the bad one were sent (each as written), and none after it.
        sent: stdin ? exactly(Array.from({ length: at }, (_, i) => i)) : nothingSent,
      };
    }
    case 'seed-yaml':
    case 'seed-json': {
      // customers.alice and accounts.main, with the poisoned path as a kind, an entry name or in a body.
      const yaml = s.reader === 'seed-yaml';
      const prefix = s.seedLevel === 'kind' ? [] : s.seedLevel === 'name' ? ['accounts'] : ['accounts', 'main'];
      const full = [...prefix, ...path];
      const customer = { first_name: 'Ada', last_name: 'Lovelace' };
      const account = { customer_id: '${customers.alice.id}', currency: 'USD' };
      let text: string;
      if (yaml) {
        const key = (k: string) => ((FORBIDDEN as readonly string[]).includes(k) ? yamlKey(k, s.yamlStyle, s.escape ?? 0) : k);
        const lines = ['customers:', '  alice: {first_name: Ada, last_name: Lovelace}'];
        const poison = (indent: number) => {
          path.forEach((k, i) =>
            lines.push(
              `${' '.repeat(indent + 2 * i)}${key(k)}:${i === path.length - 1 ? ` ${s.leafObject ? `{customer_id: ${ATTACKER}, nickname: ${MARK}}` : ATTACKER}` : ''}`,
            ),
          );
        };
        if (s.seedLevel === 'kind') {
          lines.push('accounts:', "  main: {customer_id: '${customers.alice.id}', currency: USD}");
          poison(0);
        } else if (s.seedLevel === 'name') {
          lines.push('accounts:', "  main: {customer_id: '${customers.alice.id}', currency: USD}");
          poison(2);
        } else {
          lines.push('accounts:', '  main:', "    customer_id: '${customers.alice.id}'", '    currency: USD');
          poison(4);
        }
        text = `${lines.join('\n')}\n`;
      } else {
        const poison = nestJson(path, leafJson(s.leafObject), spell).slice(1, -1);
        const main = `{"customer_id":"\${customers.alice.id}","currency":"USD",${poison}}`;
        const accounts =
          s.seedLevel === 'name'
            ? `{"main":${JSON.stringify(account)},${poison}}`
            : s.seedLevel === 'body'
              ? `{"main":${main}}`
              : JSON.stringify({ main: account });
        text = `{"customers":{"alice":${JSON.stringify(customer)}},"accounts":${accounts}${s.seedLevel === 'kind' ? `,${poison}` : ''}}`;
      }
      const p = file(yaml ? 'yaml' : 'json', text);
      return {
        label: `${label} as ${s.seedLevel}`,
        argv: ['seed', 'apply', p, '--no-input'],
        code: 2,
        says: [`${p}: key ${full.slice(0, prefix.length + s.before.length + 1).join('.')}:`, `"${s.bad}"`],
        sent: nothingSent,
      };
    }
    case 'data-inline':
    case 'data-file':
    case 'data-stdin': {
      const text = poisoned();
      const p = s.reader === 'data-file' ? file('json', text) : undefined;
      const spec = s.reader === 'data-inline' ? text : p ? `@${p}` : '@-';
      const from = s.reader === 'data-inline' ? '--data' : p ? `--data @${p}` : '--data @- (stdin)';
      return {
        label,
        argv: ['accounts', 'create', '--type', 'savings', '--data', spec],
        ...(s.reader === 'data-stdin' ? { stdin: text } : {}),
        code: 2,
        says: [`${from}: ${keyShown}`, `"${s.bad}"`],
        sent: nothingSent,
      };
    }
    case 'api-field':
      return {
        label,
        argv: ['api', 'POST', 'accounts', '-F', `currency=USD`, '-F', `${dotted}=${ATTACKER}`],
        code: 2,
        says: [`-F ${path.slice(0, s.before.length + 1).join('.')}: `, `"${s.bad}"`],
        sent: nothingSent,
      };
  }
}

// ---------------------------------------------------------------------------------------------
// attack.shapes

const SHAPE_KINDS = ['deep', 'huge-key', 'wrong-type', 'csv-header', 'yaml-odd', 'seed-structure'] as const;
const SHAPE_READERS = [
  'ndjson-file',
  'ndjson-stdin',
  'json-file',
  'data-inline',
  'data-file',
  'data-stdin',
  'seed-json',
  'seed-yaml',
  'csv-file',
] as const;

const shapeSpecArb = fc.record({
  kind: fc.constantFrom(...SHAPE_KINDS),
  reader: fc.constantFrom(...SHAPE_READERS),
  depth: fc.oneof(fc.integer({ min: 33, max: 60 }), fc.integer({ min: 61, max: 150_000 })),
  arrays: fc.boolean(),
  keyLength: fc.oneof(fc.integer({ min: 257, max: 1000 }), fc.integer({ min: 1001, max: 100_000 })),
  field: fc.constantFrom('customer_id', 'currency', 'type', 'nickname'),
  value: fc.constantFrom('5', '-1.5e3', 'true', 'false', 'null', '[]', '["USD"]', '{}', '{"$ne":null}'),
  odd: fc.nat(),
  good: fc.integer({ min: 1, max: 4 }),
  at: fc.nat(4),
});
type ShapeSpec = typeof shapeSpecArb extends fc.Arbitrary<infer T> ? T : never;

function jsonTypeOf(text: string): string {
  const v: unknown = JSON.parse(text);
  if (v === null) return 'a JSON null';
  if (Array.isArray(v)) return 'a JSON array';
  return typeof v === 'object' ? 'a JSON object' : `a JSON ${typeof v}`;
}

function shapeCase(s: ShapeSpec, dir: string): Case {
  const file = (ext: string, text: string) => {
    const p = join(dir, `input.${ext}`);
    writeFileSync(p, text);
    return p;
  };
  const at = Math.min(s.at, s.good);
  const bulk = ['accounts', 'create', '--type', 'savings', '--from-file'];
  // A reader that takes a JSON object: rows (one of them odd) or one --data object.
  const jsonReader = (odd: string, says: string, code = 2, more: string[] = []): Case => {
    const reader = s.reader;
    const label = `${s.kind} via ${reader}`;
    const rows = Array.from({ length: s.good }, (_, i) => goodRow(i < at ? i : i + 1));
    rows.splice(at, 0, odd);
    const others = Array.from({ length: s.good + 1 }, (_, i) => i).filter((i) => i !== at);
    if (reader === 'ndjson-file' || reader === 'ndjson-stdin' || reader === 'json-file') {
      const json = reader === 'json-file';
      const text = json ? `[${rows.join(',\n')}]` : `${rows.join('\n')}\n`;
      const stdin = reader === 'ndjson-stdin';
      const where = stdin ? 'standard input' : file(json ? 'json' : 'ndjson', text);
      const place = json ? `element ${at + 1}` : `line ${at + 1}`;
      if (code === 1) {
        // A wrong-typed value is that row's failure: its result names the field; the others go.
        return {
          label,
          argv: [...bulk, stdin ? '-' : where],
          ...(stdin ? { stdin: text } : {}),
          code: 1,
          says: [`1 of ${s.good + 1} ${s.good === 0 ? 'row' : 'rows'} failed`],
          sent: exactly(others),
          also: (r) => {
            const results = r.stdout
              .trim()
              .split('\n')
              .map((l) => JSON.parse(l) as { line: number; status: string; error?: string });
            const bad = results.find((x) => x.line === at + 1);
            return bad?.status === 'failed' && bad.error?.startsWith(says)
              ? undefined
              : `row ${at + 1}'s result is ${JSON.stringify(bad)}, expected failed with "${says}…"`;
          },
        };
      }
      return {
        label,
        argv: [...bulk, stdin ? '-' : where],
        ...(stdin ? { stdin: text } : {}),
        code,
        says: [`${where}: ${place}: `, says, ...more],
        // Only a forbidden key makes pay read a file through before sending: a row too deep or
        // with a huge key stops the run there, after the rows before it (each as written).
        sent: exactly(Array.from({ length: at }, (_, i) => i)),
      };
    }
    const spec = reader === 'data-inline' ? odd : reader === 'data-file' ? `@${file('json', odd)}` : '@-';
    const from =
      code === 1 ? '--data' : reader === 'data-inline' ? '--data' : reader === 'data-file' ? `--data ${spec}` : '--data @- (stdin)';
    return {
      label,
      argv: ['accounts', 'create', '--data', spec, ...(s.field === 'type' && code === 1 ? [] : ['--type', 'savings'])],
      ...(reader === 'data-stdin' ? { stdin: odd } : {}),
      code: 2,
      says: [`${from}: `, code === 1 ? says.replace(/^--data: /, '') : says, ...more],
      sent: nothingSent,
    };
  };
  const withField = (inner: string) => `{"customer_id":"${CUS}","currency":"USD","nickname":"r${at}","meta":${inner}}`;
  const deepText = (depth: number) =>
    s.arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"k":'.repeat(depth)}1${'}'.repeat(depth)}`;

  // Inline --data is an argv string (at most 128 KiB): keep it well under.
  const inline = s.reader === 'data-inline';
  const depth = inline ? Math.min(s.depth, 15_000) : s.depth;
  const keyLength = inline ? Math.min(s.keyLength, 60_000) : s.keyLength;
  const hugeKey = 'k'.repeat(keyLength);

  switch (s.kind) {
    case 'deep':
      if (s.reader === 'seed-yaml') {
        // Flow collections as deep as asked, or block mappings (indentation grows: at most 300 deep).
        const block = s.odd % 2 === 0;
        const d = block ? Math.min(depth, 300) : depth;
        const meta = block
          ? `\n${Array.from({ length: d }, (_, i) => `${' '.repeat(6 + 2 * i)}k:${i === d - 1 ? ' 1' : ''}`).join('\n')}`
          : ` ${s.arrays ? `${'['.repeat(d)}${']'.repeat(d)}` : `${'{k: '.repeat(d)}1${'}'.repeat(d)}`}`;
        const p = file('yaml', `customers:\n  alice:\n    first_name: Ada\n    meta:${meta}\n`);
        return {
          label: `deep (${d}, ${block ? 'block' : 'flow'}) via seed-yaml`,
          argv: ['seed', 'apply', p, '--no-input'],
          code: 2,
          says: [`${p}`, 'nested deeper than 32 levels'],
          sent: nothingSent,
        };
      }
      if (s.reader === 'seed-json' || s.reader === 'csv-file') {
        if (s.reader === 'csv-file') {
          const cols = Math.min(depth, 2000);
          const column = Array.from({ length: cols }, () => 'k').join('.');
          const p = file('csv', `customer_id,currency,${column}\n${CUS},USD,x\n`);
          return {
            label: `deep column (${cols}) via csv-file`,
            argv: [...bulk, p],
            code: 2,
            says: [`${p}: line 1: CSV header: column "k.k.k`, 'nested deeper than 32 levels'],
            sent: nothingSent,
          };
        }
        const p = file('json', `{"customers":{"alice":{"first_name":"Ada","meta":${deepText(depth)}}}}`);
        return {
          label: `deep (${depth}) via seed-json`,
          argv: ['seed', 'apply', p, '--no-input'],
          code: 2,
          says: [`${p}: key customers.alice.meta`, 'nested deeper than 32 levels'],
          sent: nothingSent,
        };
      }
      return jsonReader(withField(deepText(Math.min(depth, 150_000))), 'key meta', 2, ['nested deeper than 32 levels']);
    case 'huge-key':
      if (s.reader === 'csv-file') {
        const p = file('csv', `customer_id,currency,${hugeKey}\n${CUS},USD,x\n`);
        return {
          label: `huge column (${keyLength}) via csv-file`,
          argv: [...bulk, p],
          code: 2,
          says: [`${p}: line 1: CSV header: column "kkk`, `a key of ${keyLength} characters (at most 256)`],
          sent: nothingSent,
        };
      }
      if (s.reader === 'seed-json' || s.reader === 'seed-yaml') {
        const yaml = s.reader === 'seed-yaml';
        // YAML: an explicit key (`? key`), as an implicit one is limited to 1024 characters by YAML itself.
        const p = file(
          yaml ? 'yaml' : 'json',
          yaml
            ? `customers:\n  alice:\n    first_name: Ada\n    ? ${hugeKey}\n    : 1\n`
            : `{"customers":{"alice":{"first_name":"Ada","${hugeKey}":1}}}`,
        );
        return {
          label: `huge key (${keyLength}) via ${s.reader}`,
          argv: ['seed', 'apply', p, '--no-input'],
          code: 2,
          says: [`${p}: key customers.alice."kkk`, `a key of ${keyLength} characters (at most 256)`],
          sent: nothingSent,
        };
      }
      return jsonReader(
        `{"customer_id":"${CUS}","currency":"USD","nickname":"r${at}","${hugeKey}":1}`,
        `a key of ${keyLength} characters (at most 256)`,
      );
    case 'wrong-type': {
      if (s.reader === 'csv-file' || s.reader.startsWith('seed'))
        return shapeCase({ ...s, kind: 'seed-structure', reader: s.reader === 'csv-file' ? 'seed-yaml' : s.reader }, dir);
      const fields: Record<string, string> = { customer_id: JSON.stringify(CUS), currency: '"USD"', nickname: `"r${at}"` };
      fields[s.field] = s.value;
      const odd = `{${Object.entries(fields)
        .map(([k, v]) => `"${k}":${v}`)
        .join(',')}}`;
      // `type` comes from --type in bulk runs (flags win over rows): a wrong-typed type is --data's only.
      if (s.field === 'type' && !s.reader.startsWith('data')) return shapeCase({ ...s, field: 'nickname' }, dir);
      return jsonReader(
        odd,
        `--data: ${s.field} must be a string, not ${jsonTypeOf(s.value)}`.replace(
          /^--data: /,
          s.reader.startsWith('data') ? '--data: ' : '',
        ),
        1,
      );
    }
    case 'csv-header': {
      const variants = [
        { header: 'customer_id,currency,nickname,nickname', says: 'column "nickname" appears twice' },
        {
          header: 'customer_id,currency,nickname,nickname.first',
          says: 'column "nickname" is a value, and column "nickname.first" would make it an object',
        },
        {
          header: 'customer_id,currency,meta.a,meta,nickname',
          says: 'column "meta" is a value, and column "meta.a" would make it an object',
        },
        { header: 'customer_id,currency,first name', says: 'invalid column name "first name"' },
      ];
      const v = variants[s.odd % variants.length]!;
      const cells = v.header.split(',').map((h) => (h === 'customer_id' ? CUS : h === 'currency' ? 'USD' : 'x'));
      const text = `${v.header}\n${cells.join(',')}\n`;
      const p = file('csv', text);
      return {
        label: `csv header ${v.header}`,
        argv: [...bulk, p],
        code: 2,
        says: [`${p}: line 1: CSV header: `, v.says],
        sent: nothingSent,
      };
    }
    case 'yaml-odd': {
      const variants = [
        {
          text: 'customers:\n  alice: &a\n    first_name: Ada\n    self: *a\n',
          says: ['key ', 'self.self.self', 'nested deeper than 32 levels'],
        },
        { text: 'customers:\n  alice:\n    first_name: !!binary AAAA\n', says: ['key customers.alice.first_name', 'not a JSON value'] },
        { text: 'customers:\n  alice:\n    ? [first, name]\n    : Ada\n', says: ['a key that is a list or a mapping (line 3, column 7)'] },
        {
          text: 'customers:\n  alice:\n    first_name: !!js/function "function () { return 1 }"\n',
          says: ['is not valid YAML: Unresolved tag'],
        },
        {
          text: 'customers:\n  alice: {first_name: Ada}\n  alice: {first_name: Eve}\n',
          says: ['is not valid YAML: Map keys must be unique'],
        },
      ];
      const v = variants[s.odd % variants.length]!;
      const p = file('yaml', v.text);
      return { label: `yaml ${v.says.at(-1)}`, argv: ['seed', 'apply', p, '--no-input'], code: 2, says: [p, ...v.says], sent: nothingSent };
    }
    case 'seed-structure': {
      const variants: Array<{ text: unknown; says: string }> = [
        { text: { customers: [1, 2] }, says: 'customers must be a mapping of names to objects' },
        { text: { customers: 5 }, says: 'customers must be a mapping of names to objects' },
        { text: { customers: { alice: 'Ada' } }, says: 'customers.alice must be an object' },
        { text: { customers: { alice: [] } }, says: 'customers.alice must be an object' },
        {
          text: { customers: { alice: { first_name: 'Ada', depends_on: 'customers.bob' } } },
          says: 'customers.alice.depends_on must be a list',
        },
        { text: { customers: { alice: { first_name: 'Ada', depends_on: [1] } } }, says: 'customers.alice.depends_on must be a list' },
        { text: { toString: { alice: {} } }, says: 'unknown kind "toString"' },
        { text: { hasOwnProperty: { alice: {} } }, says: 'unknown kind "hasOwnProperty"' },
        { text: [1, 2], says: 'the top level must be a mapping of kinds' },
      ];
      const v = variants[s.odd % variants.length]!;
      const yaml = s.reader === 'seed-yaml';
      // JSON is YAML too: the same document in flow style.
      const p = file(yaml ? 'yaml' : 'json', JSON.stringify(v.text));
      return { label: `seed ${v.says}`, argv: ['seed', 'apply', p, '--no-input'], code: 2, says: [`${p}: `, v.says], sent: nothingSent };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Running and judging

let tenantNo = 0;

async function runCases(
  cases: Array<(dir: string) => Case>,
): Promise<{ passed: number; failures: string[]; leaked: number; sent: number; codes: Record<string, number> }> {
  const failures: string[] = [];
  const codes: Record<string, number> = {};
  let leaked = 0;
  let sentTotal = 0;
  const results = await pool(cases, PARALLEL, async (make, i) => {
    const dir = join(root, `case-${i}-${Math.random().toString(36).slice(2, 8)}`);
    mkdirSync(dir);
    const c = make(dir);
    const tenant = `biz_attack_${++tenantNo}`;
    const env = cleanEnv({
      PAY_CONFIG_DIR: configDir,
      PAY_BASE_URL: server.baseUrl,
      PAY_API_KEY: KEY,
      PAY_TENANT_ID: tenant,
      PAY_MAX_RETRIES: '0',
      PAY_TIMEOUT: '20',
    });
    const r = await pay(c.argv, { env, ...(c.stdin !== undefined ? { stdin: c.stdin } : {}), timeoutMs: 120_000 });
    const sent = server.requests.filter((q) => q.headers['x-tenant-id'] === tenant);
    sentTotal += sent.length;
    codes[String(r.code)] = (codes[String(r.code)] ?? 0) + 1;
    // The poison reaching the server, or a body with a key no row wrote: a leak across rows.
    if (
      sent.some(
        (q) =>
          q.body.includes(ATTACKER) ||
          q.body.includes(MARK) ||
          Object.keys(q.json ?? {}).some((k) => !['customer_id', 'currency', 'nickname', 'type'].includes(k)),
      )
    )
      leaked++;
    const why = judge(c, r, sent);
    if (why) failures.push(`#${i} ${c.label}: ${shown(c.argv)}: ${why}`);
    return !why;
  });
  return { passed: results.filter(Boolean).length, failures, leaked, sent: sentTotal, codes };
}

function judge(c: Case, r: Run, sent: Recorded[]): string | undefined {
  if (r.timedOut) return `no exit within the time bound (${r.ms} ms)`;
  const trace = stackTrace(r.stderr) ?? stackTrace(r.stdout);
  if (trace) return `stack trace / error dump: ${trace.slice(0, 200)}`;
  if (/error: unexpected|Maximum call stack|RangeError|TypeError/.test(r.stderr)) return `internal error: ${r.stderr.trim().slice(0, 300)}`;
  const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
  if (r.code !== c.code) return `exit ${r.code}, expected ${c.code} [${r.stderr.trim().slice(0, 300)}]`;
  if (errors.length !== 1) return `${errors.length} error lines: ${r.stderr.trim().slice(0, 300)}`;
  const line = errors[0]!;
  for (const want of c.says)
    if (!line.includes(want)) return `the error line lacks ${JSON.stringify(want.slice(0, 120))}: ${line.slice(0, 400)}`;
  const sentWhy = c.sent(sent);
  if (sentWhy) return sentWhy;
  return c.also?.(r);
}

// ---------------------------------------------------------------------------------------------
// In process: the setter and the readers leave Object.prototype alone

/** The in-process check's figures, recorded with the runs of pay under attack.keys. */
let inProcess: { tried: number; passed: number; polluted: number } | undefined;

const protoNames = () => Object.getOwnPropertyNames(Object.prototype).sort().join(',');

async function readAll(text: string, format: 'csv' | 'ndjson' | 'json'): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const row of readRows(Readable.from([text]), format, 'in.txt')) out.push(row.value);
  return out;
}

describe('attack: keys from untrusted input', () => {
  it(`in process: ${UNIT_RUNS} poisoned paths through setPath, parseJson, readRows (CSV, NDJSON, JSON), parseSeed: refused, Object.prototype untouched (seed ${SEED})`, async () => {
    const before = protoNames();
    const failures: string[] = [];
    const specs = fc.sample(
      fc.tuple(
        fc.array(name, { maxLength: 3 }),
        fc.constantFrom(...FORBIDDEN),
        fc.array(name, { maxLength: 2 }),
        fc.option(fc.nat(20), { nil: undefined }),
        fc.array(name, { minLength: 1, maxLength: 4 }),
      ),
      { numRuns: UNIT_RUNS, seed: SEED },
    );
    let passed = 0;
    for (const [pre, bad, post, esc, safe] of specs) {
      const path = [...pre, bad, ...post];
      const leafKey = post.at(-1) ?? 'polluted_leaf';
      const tries: Array<[string, () => unknown]> = [
        ['setPath', () => setPath({}, path.join('.'), MARK)],
        ['setPath (keys)', () => setPath({}, path, MARK)],
        [
          'parseJson',
          () =>
            parseJson(
              nestJson(path, JSON.stringify({ [leafKey]: MARK }), (k) =>
                jsonKey(k, (FORBIDDEN as readonly string[]).includes(k) ? esc : undefined),
              ),
              'x',
            ),
        ],
        [
          'parseSeed',
          () => parseSeed(JSON.parse(`{"customers":{"a":${nestJson(path, JSON.stringify(MARK), (k) => jsonKey(k, esc))}}}`), 'x'),
        ],
        ['csv', () => readAll(`a,${path.join('.')}\n1,${MARK}\n2,${MARK}\n`, 'csv')],
        ['ndjson', () => readAll(`{"a":1}\n${nestJson(path, JSON.stringify(MARK), (k) => jsonKey(k, esc))}\n`, 'ndjson')],
        ['json', () => readAll(`[{"a":1},${nestJson(path, JSON.stringify(MARK), (k) => jsonKey(k, esc))}]`, 'json')],
      ];
      let ok = true;
      for (const [what, fn] of tries) {
        try {
          await fn();
          failures.push(`${what} ${path.join('.')}: accepted`);
          ok = false;
        } catch (err) {
          if (!(err instanceof UsageError) || !err.message.includes(`"${bad}"`)) {
            failures.push(`${what} ${path.join('.')}: ${String(err)}`);
            ok = false;
          }
        }
      }
      // A clean path is set where it says, as an own property: the setter is not just refusing.
      const o: Record<string, unknown> = {};
      setPath(o, safe.join('.'), MARK);
      let cur: unknown = o;
      for (const k of safe) cur = Object.hasOwn(cur as object, k) ? (cur as Record<string, unknown>)[k] : undefined;
      if (cur !== MARK) {
        failures.push(`setPath ${safe.join('.')}: not set`);
        ok = false;
      }
      if (
        protoNames() !== before ||
        ({} as Record<string, unknown>)[leafKey] !== undefined ||
        ({} as Record<string, unknown>).customer_id !== undefined
      ) {
        failures.push(`${path.join('.')}: Object.prototype changed`);
        ok = false;
      }
      if (ok) passed++;
    }
    inProcess = { tried: UNIT_RUNS, passed, polluted: protoNames() === before ? 0 : 1 };
    expect(failures.slice(0, 20)).toEqual([]);
  }, 300_000);

  it(
    `${KEYS_RUNS} poisoned key paths in CSV headers, NDJSON and JSON-array rows, seed files, --data and -F: exit 2, named, nothing sent (seed ${SEED})`,
    async () => {
      const started = Date.now();
      const specs = fc.sample(keySpecArb, { numRuns: KEYS_RUNS, seed: SEED });
      const res = await runCases(specs.map((s) => (dir: string) => keyCase(s, dir)));
      const readers = new Set(specs.map((s) => s.reader)).size;
      await record(
        'attack.keys',
        'keys __proto__/constructor/prototype at any depth, in every reader (CSV, NDJSON, JSON array, seed YAML/JSON, --data, -F)',
        {
          tried: KEYS_RUNS + (inProcess?.tried ?? 0),
          passed: res.passed + (inProcess?.passed ?? 0),
          lost: 0,
          duplicated: 0,
          leaked: res.leaked + (inProcess?.polluted ?? 0),
          extra: {
            seed: SEED,
            runs_of_pay: KEYS_RUNS,
            in_process_paths: inProcess?.tried ?? 0,
            readers: readers,
            stdin_rows_sent_before_the_bad_one: res.sent,
          },
        },
        started,
      );
      expect(res.failures.slice(0, 20), `seed ${SEED}`).toEqual([]);
      expect(res.leaked).toBe(0);
      expect(inProcess?.polluted ?? 0).toBe(0);
    },
    LONG,
  );

  it('control: the same inputs without the poisoned key are sent, so "nothing sent" above means refused', async () => {
    // The poisoned key renamed (and in a seed file, inside a body: a kind or entry of that name is refused for its own reasons).
    const specs = KEY_READERS.filter((r) => r !== 'api-field').map((reader, i): KeySpec => ({
      ...fc.sample(keySpecArb, { numRuns: 1, seed: SEED + i })[0]!,
      reader,
      bad: 'polluted' as never,
      seedLevel: 'body',
    }));
    await pool(specs, PARALLEL, async (s, i) => {
      const dir = join(root, `control-${i}`);
      mkdirSync(dir);
      const c = keyCase(s, dir);
      const tenant = `biz_control_${i}`;
      const env = cleanEnv({
        PAY_CONFIG_DIR: configDir,
        PAY_BASE_URL: server.baseUrl,
        PAY_API_KEY: KEY,
        PAY_TENANT_ID: tenant,
        PAY_MAX_RETRIES: '0',
        PAY_TIMEOUT: '20',
      });
      const r = await pay(c.argv, { env, ...(c.stdin !== undefined ? { stdin: c.stdin } : {}), timeoutMs: 120_000 });
      expect(stackTrace(r.stderr), `${s.reader}: ${r.stderr}`).toBeUndefined();
      expect(server.requests.filter((q) => q.headers['x-tenant-id'] === tenant).length, `${s.reader}: ${r.stderr}`).toBeGreaterThan(0);
    });
  }, 300_000);
});

describe('attack: odd shapes are usage errors', () => {
  it(`in process: nesting a million deep and cycles are found without recursion`, () => {
    let deep: unknown = 1;
    for (let i = 0; i < 1_000_000; i++) deep = [deep];
    expect(shapeProblem(deep)?.problem).toBe('nested deeper than 32 levels');
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(shapeProblem({ x: cyclic })).toEqual({ path: `x${'.self'.repeat(31)}`, problem: 'nested deeper than 32 levels' });
    expect(shapeProblem({ a: [{ b: 1 }], c: { d: [1, [2]] } })).toBeUndefined();
    let ok: unknown = 1;
    for (let i = 0; i < 32; i++) ok = { k: ok };
    expect(shapeProblem(ok)).toBeUndefined();
    expect(shapeProblem({ k: ok })?.problem).toBe('nested deeper than 32 levels');
  });

  it(
    `${SHAPES_RUNS} deep, huge-keyed, wrong-typed and odd inputs in every reader: exit 2 naming the place, never a stack overflow (seed ${SEED})`,
    async () => {
      const started = Date.now();
      const specs = fc.sample(shapeSpecArb, { numRuns: SHAPES_RUNS, seed: SEED });
      const res = await runCases(specs.map((s) => (dir: string) => shapeCase(s, dir)));
      const kinds = Object.fromEntries(SHAPE_KINDS.map((k) => [`kind_${k}`, specs.filter((s) => s.kind === k).length]));
      await record(
        'attack.shapes',
        'nesting past 32, keys past 256 characters, wrong JSON types, bad CSV headers, odd YAML: exit 2 naming the place',
        {
          tried: SHAPES_RUNS,
          passed: res.passed,
          lost: 0,
          duplicated: 0,
          leaked: res.leaked,
          extra: { seed: SEED, ...kinds, ...Object.fromEntries(Object.entries(res.codes).map(([c, n]) => [`exit_${c}`, n])) },
        },
        started,
      );
      expect(res.failures.slice(0, 20), `seed ${SEED}`).toEqual([]);
    },
    LONG,
  );
});
