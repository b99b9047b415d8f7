// Scripts and pipelines (issue 15), in process: the CSV writer against RFC 4180 (its output read
// back by pay's own CSV reader), the formula guard and the terminal; jq's output as jq -r prints
// it, escaped on a terminal; --fields against the contract for every verb; the declarations
// every command needs for --jq, --fields and --dry-run; close-name suggestions.
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasField, operationFields } from '../../src/api/response-fields.js';
import { Command } from 'commander';
import { explainParseError, hoistVerbFlags, wantsJsonErrors } from '../../src/argv.js';
import { closeNames, didYouMean, isClose } from '../../src/lib/distance.js';
import { AnswerTooLargeError, BadAnswerError } from '../../src/api/errors.js';
import { addRequestHint } from '../../src/cmdutil/hints.js';
import { refusalHint } from '../../src/shared/rules.js';
import { ApiError, NetworkError, PayError } from '../../src/lib/errors.js';
import { readRows } from '../../src/bulk/input.js';
import type { CommandDecl } from '../../src/cmdutil/decl.js';
import { specOf } from '../../src/cmdutil/registry.js';
import { buildProgram } from '../../src/commands/tree.js';
import { allGroups } from '../../src/commands/groups.js';
import { TOOLING } from '../../src/commands/index.js';
import { csvField, csvHeader, csvRecord } from '../../src/io/csv.js';
import { compileJq, render, renderValue, valueFramer } from '../../src/io/jq.js';
import { escapeJson } from '../../src/lib/escape.js';
import { formatTime, isTimePath } from '../../src/io/output.js';
import { pay } from './commands/harness.js';
import { payArgvs } from './commands/shell-words.js';

/** What a terminal must never receive from the data: C0 (but the line break of a record), DEL, C1, bidi, separators, invisibles. */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/u;

const cell = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('', 'a,b', 'say "hi"', 'two\nlines', 'cr\r\nlf', '=1+2', '+447700900123', '-25.00', '@SUM(A1)', '\tx', ' padded '),
);

async function readCsv(text: string): Promise<Array<Record<string, unknown>>> {
  const rows: Array<Record<string, unknown>> = [];
  for await (const row of readRows(Readable.from([text]), 'csv', 'test.csv')) {
    expect(row.error).toBeUndefined();
    rows.push(row.value ?? {});
  }
  return rows;
}

describe('-o csv (RFC 4180)', () => {
  it('quotes commas, quotes, CR and LF, doubles quotes, ends records with CRLF', () => {
    expect(csvRecord(['a', 'b,c', 'say "hi"', 'x\ny', null, 3, true, { n: 1 }], false)).toBe(
      'a,"b,c","say ""hi""","x\ny",,3,true,"{""n"":1}"\r\n',
    );
    expect(csvHeader(['id', 'address.city'], false)).toBe('id,address.city\r\n');
  });

  it('read back by pay --from-file, every cell is the text written (a formula prefixed with a quote)', async () => {
    const columns = ['c0', 'c1', 'c2'];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(cell, cell, cell), { minLength: 1, maxLength: 6 }), async (records) => {
        const text = csvHeader(columns, false) + records.map((r) => csvRecord(r, false)).join('');
        const back = await readCsv(text);
        expect(back).toHaveLength(records.length);
        records.forEach((r, i) => {
          r.forEach((value, j) => {
            const expected = /^[=+\-@\t\r]/.test(value) && !/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(value) ? `'${value}` : value;
            // The reader leaves empty cells out.
            expect(back[i]![`c${j}`] ?? '').toBe(expected);
          });
        });
      }),
      { numRuns: 300 },
    );
  });

  it('no field starts a formula: =, +, -, @, tab and CR are quoted away, plain numbers kept', () => {
    fc.assert(
      fc.property(cell, (value) => {
        const f = csvField(value, false).replace(/^"/, '');
        if (/^[=+\-@\t\r]/.test(f)) expect(f).toMatch(/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/);
      }),
      { numRuns: 500 },
    );
    expect(csvField('=HYPERLINK("http://x")', false)).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvField('-25.00', false)).toBe('-25.00');
    expect(csvField('+447700900123', false)).toBe('+447700900123');
  });

  it('on a terminal every record is one line and no control, bidi or invisible character gets through', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 20 }), { maxLength: 5 }), (values) => {
        const line = csvRecord(values, true);
        expect(line.endsWith('\r\n')).toBe(true);
        expect(line.slice(0, -2)).not.toMatch(/[\r\n]/);
        expect(line.slice(0, -2)).not.toMatch(UNSAFE);
      }),
      { numRuns: 500 },
    );
  });
});

describe('--jq', () => {
  it('prints what jq -r prints: strings raw, other values as jq formats them', () => {
    expect(render('\u001e"a"\n\u001e{\n  "b": 1.10\n}\n\u001e[]\n\u001e"x\\ty"', false)).toBe('a\n{\n  "b": 1.10\n}\n[]\nx\ty\n');
  });

  it('on a terminal, raw strings from the data are escaped (line breaks and tabs kept)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 30 }), (s) => {
        const out = render(`\u001e${JSON.stringify(s)}`, true);
        expect(out.replace(/[\n\t]/g, '')).not.toMatch(UNSAFE);
      }),
      { numRuns: 500 },
    );
  });

  it('a filter jq refuses is a usage error naming --jq; one that would loop forever is only compiled', async () => {
    const warn = () => {};
    for (const bad of ['.a | (', '$nope', 'nope(1)', 'include "x"; .', '', '.[', '"\\(1"'])
      await expect(compileJq(bad, { tty: false, warn }), bad).rejects.toMatchObject({
        exitCode: 2,
        message: expect.stringMatching(/^--jq/),
      });
    const loop = await compileJq('repeat(1)', { tty: false, warn });
    expect(loop.expr).toBe('repeat(1)');
  });

  it('runs over the JSON text: a whole array, exact numbers and strings, errors after what was printed', async () => {
    const f = await compileJq('.[] | .a', { tty: false, warn: () => {} });
    let out = '';
    f.run('[{"a":"x"},{"a":1.50},{"a":null}]', (t) => (out += t));
    expect(out).toBe('x\n1.50\nnull\n');
    const g = await compileJq('.[] | .a.b', { tty: false, warn: () => {} });
    let partial = '';
    expect(() => g.run('[{"a":{"b":1}},{"a":"s"}]', (t) => (partial += t))).toThrow(/^--jq: Cannot index string with string \("b"\)/);
    expect(partial).toBe('1\n');
  });

  it('cannot read pay environment: $ENV and env are the sandbox', async () => {
    process.env.PAY_JQ_TEST_SECRET = 'sk_test_never_in_jq_output_1234';
    try {
      const f = await compileJq('[env, $ENV] | tostring', { tty: false, warn: () => {} });
      let out = '';
      f.run('null', (t) => (out += t));
      expect(out).not.toContain('never_in_jq');
      // Not the emulated system's USER, PATH and HOME either: empty, as the README says.
      expect(out).toBe('[{},{}]\n');
    } finally {
      delete process.env.PAY_JQ_TEST_SECRET;
    }
  });

  it('streams: each value is printed as jq makes it, and a closed stdout stops an endless filter', async () => {
    let closed = false;
    const f = await compileJq('range(1e12)', { tty: false, warn: () => {}, closed: () => closed });
    let out = '';
    let writes = 0;
    f.run('null', (t) => {
      out += t;
      if (++writes === 2) closed = true;
    });
    expect(writes).toBe(2);
    expect(out.startsWith('0\n1\n2\n')).toBe(true);
    // A later filter gets a jq of its own: the stopped one is not used again.
    const g = await compileJq('.a', { tty: false, warn: () => {} });
    let next = '';
    g.run('{"a": [1, "x"]}', (t) => (next += t));
    expect(next).toBe('[\n  1,\n  "x"\n]\n');
  });

  it('whatever the pieces jq writes come in, the values printed are the same', () => {
    const value = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.integer(),
      fc.constant(null),
      fc.json({ maxDepth: 3 }).map((j) => JSON.parse(j) as unknown),
    );
    fc.assert(
      fc.property(fc.array(value, { maxLength: 6 }), fc.array(fc.nat(40), { maxLength: 12 }), fc.boolean(), (values, cuts, tty) => {
        // What jq --seq writes: a separator, the value (2-space indent), a line break.
        const text = values.map((v) => `\u001e${JSON.stringify(v, null, 2)}\n`).join('');
        const whole = render(text, tty);
        let pieces = '';
        const framer = valueFramer((v) => (pieces += renderValue(v, tty)));
        let at = 0;
        for (const cut of cuts) {
          framer.push(text.slice(at, at + cut));
          at += cut;
        }
        framer.push(text.slice(at));
        framer.end();
        expect(pieces).toBe(whole);
        if (!tty) expect(whole).toBe(values.map((v) => `${typeof v === 'string' ? v : JSON.stringify(v, null, 2)}\n`).join(''));
      }),
      { numRuns: 400 },
    );
  });
});

describe('JSON on a terminal', () => {
  it('what a terminal would act on is written as JSON escapes: the same data, nothing unsafe left', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary', maxLength: 20 }), (v, s) => {
        for (const value of [v, s, { s, v }]) {
          for (const text of [JSON.stringify(value), JSON.stringify(value, null, 2)]) {
            const safe = escapeJson(text);
            expect(JSON.parse(safe)).toEqual(JSON.parse(text));
            expect(safe.replace(/\n/g, '')).not.toMatch(UNSAFE);
          }
        }
      }),
      { numRuns: 500 },
    );
    expect(escapeJson(JSON.stringify('a\u009b[31mb'))).toBe('"a\\u009b[31mb"');
    expect(escapeJson('{"x":1}')).toBe('{"x":1}');
  });
});

describe('--fields against the contract', () => {
  const verbs = allGroups.flatMap((g) => g.verbs.map((v) => ({ g, v }))).filter(({ v }) => !v.offline);

  it('every verb of the tree names an operation whose answer has fields, and its table columns are among them', () => {
    for (const { g, v } of verbs) {
      const set = operationFields(v.operationId);
      expect(set, `${g.name} ${v.name}`).toBeDefined();
      expect(set!.names.length, `${g.name} ${v.name}`).toBeGreaterThan(0);
      for (const c of v.columns ?? (v.kind === 'list' ? g.columns : [])) {
        expect(hasField(set!, c.path), `${g.name} ${v.name}: column ${c.path}`).toBe(true);
      }
    }
  });

  it('an unknown name is exit 2 listing the valid ones, and nothing is sent; dotted paths pass', async () => {
    const r = await pay(['customers', 'list', '--fields', 'id,bogus', '--json']);
    expect(r.code).toBe(2);
    expect(r.requests).toEqual([]);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error.message).toMatch(
      /^--fields: unknown field "bogus" for pay customers list \(valid: id, object, .*address\.city/,
    );
    const typo = await pay(['customers', 'get', 'cus_0123456789abcdefghijklmn', '--fields', 'emial']);
    expect(typo.stderr).toMatch(/^hint: did you mean email\?/m);
    const ok = await pay(['accounts', 'list', '--fields', 'id,balance.available', '--json'], { env: { PAY_TENANT_ID: 'biz_1' } });
    expect(ok.code).toBe(0);
    expect(ok.requests).toHaveLength(1);
  });

  it('bare --fields lists them, one a line, and sends nothing', async () => {
    const r = await pay(['transactions', 'list', '--fields']);
    expect(r.code).toBe(0);
    expect(r.requests).toEqual([]);
    expect(r.stdout.split('\n')).toEqual(expect.arrayContaining(['id', 'amount', 'created_at']));
    const empty = await pay(['customers', 'list', '--fields', '']);
    expect(empty.code).toBe(2);
  });

  it('a map allows any name below it (fx rates)', () => {
    const set = operationFields('getFxRates')!;
    expect(hasField(set, 'rates.EUR')).toBe(true);
    expect(hasField(set, 'ratez.EUR')).toBe(false);
  });
});

describe('declarations: what a command needs for --jq, --fields, csv and --dry-run', () => {
  const program = buildProgram();
  const all: Array<{ name: string; cmd: (typeof program.commands)[number] }> = [];
  const walk = (c: (typeof program.commands)[number], path: string): void => {
    for (const s of c.commands) {
      all.push({ name: `${path} ${s.name()}`, cmd: s });
      walk(s, `${path} ${s.name()}`);
    }
  };
  walk(program, 'pay');

  it('every command that takes --json takes --jq too', () => {
    const json = all.filter(({ cmd }) => cmd.options.some((o) => o.long === '--json'));
    expect(json.length).toBeGreaterThan(50);
    for (const { name, cmd } of json)
      expect(
        cmd.options.some((o) => o.long === '--jq'),
        name,
      ).toBe(true);
  });

  it('every command that takes --dry-run takes --json too, and every command with --json takes -o json', () => {
    const dry = all.filter(({ cmd }) => cmd.options.some((o) => o.long === '--dry-run'));
    expect(dry.map((d) => d.name)).toEqual(expect.arrayContaining(['pay emulator reset', 'pay emulator clock advance', 'pay trigger']));
    for (const { name, cmd } of dry)
      expect(
        cmd.options.some((o) => o.long === '--json'),
        `${name} --json`,
      ).toBe(true);
    for (const { name, cmd } of all.filter(({ cmd }) => cmd.options.some((o) => o.long === '--json')))
      expect(cmd.options.find((o) => o.long === '--output')?.argChoices, `${name} -o`).toContain('json');
  });

  it('every command with --fields checks it: verbs against their operation, other commands against their declared fields', () => {
    const decls = (list: readonly CommandDecl[]): CommandDecl[] => list.flatMap((d) => [d, ...decls(d.subcommands ?? [])]);
    for (const d of decls(TOOLING)) if (d.output?.projection) expect(d.output.fields?.length, d.name).toBeGreaterThan(0);
    for (const { name, cmd } of all) {
      const verb = specOf.get(cmd)?.verb;
      if (verb && cmd.options.some((o) => o.long === '--fields')) expect(verb.operationId, name).not.toBe('');
    }
  });

  it('a command that says it prints JSON takes the output flags (so --jq)', () => {
    const decls = (list: readonly CommandDecl[]): CommandDecl[] => list.flatMap((d) => [d, ...decls(d.subcommands ?? [])]);
    for (const d of decls(TOOLING)) if (d.prints && 'json' in d.prints) expect(d.output, d.name).toBeDefined();
  });

  // Every command that takes --jq, run as its help's examples show with a filter that prints one
  // word: what it prints is that word and nothing else (a command printing JSON its own way fails
  // here), and a failure always says something on stderr.
  const SENTINEL = 'pay-jq-ran';
  const examples = all.flatMap(({ name, cmd }) => {
    if (!cmd.options.some((o) => o.long === '--jq') || cmd.commands.length > 0) return [];
    const spec = specOf.get(cmd)?.verb;
    const help = /\nExamples:\n((?: {2}\$ .*\n)+)/.exec(cmd.helpInformation() + helpAfter(cmd))?.[1] ?? '';
    const lines = spec
      ? spec.examples
      : help
          .split('\n')
          .filter(Boolean)
          .map((l) => l.slice(4));
    return (
      lines
        .flatMap((line) => payArgvs(line))
        .filter((argv) => !LONG_RUNNING.some((w) => argv.join(' ').includes(w)))
        // pay trigger waits for an event the fake service never emits: a second's wait, then its error.
        .map((argv) => (argv[0] === 'trigger' && !argv.includes('--list') ? [...argv, '--wait-timeout', '1'] : argv))
        .map((argv) => ({ name, argv: withJq(argv, `"${SENTINEL}"`) }))
    );
  });

  it.each(examples.map((e) => [e.argv.join(' '), e] as const))('%s: prints only what --jq prints', async (_l, { argv }) => {
    const r = await pay(argv, { env: { PAY_TENANT_ID: 'biz_1', PAY_WEBHOOK_SECRET: 'whsec_c2VjcmV0c2VjcmV0' }, stdin: '' });
    if (r.code === 0)
      expect(
        r.stdout
          .split('\n')
          .filter(Boolean)
          .every((l) => l === SENTINEL),
        r.stdout,
      ).toBe(true);
    else expect(r.stderr, 'a failure says what went wrong').not.toBe('');
  });

  it('the check above runs most of them to the end', async () => {
    // pay emulator … asks the base URL whether it is an emulator first: the fake service is not one,
    // so those examples end in their (checked) error and are not counted either way.
    const runnable = examples.filter((e) => !e.name.startsWith('pay emulator '));
    let ran = 0;
    for (const { argv } of runnable) {
      const r = await pay(argv, { env: { PAY_TENANT_ID: 'biz_1', PAY_WEBHOOK_SECRET: 'whsec_c2VjcmV0c2VjcmV0' }, stdin: '' });
      if (r.code === 0 && r.stdout.includes(SENTINEL)) ran++;
    }
    expect(runnable.length).toBeGreaterThan(100);
    expect(ran).toBeGreaterThan(runnable.length / 2);
  });

  it('every command that can print a table takes --wide, and only those (README: accepted wherever a table can print)', async () => {
    const tables = all.filter(({ cmd }) => cmd.options.find((o) => o.long === '--output')?.argChoices?.includes('table'));
    expect(tables.length).toBeGreaterThan(50);
    for (const { name, cmd } of all) {
      const table = tables.some((t) => t.cmd === cmd);
      expect(
        cmd.options.some((o) => o.long === '--wide'),
        name,
      ).toBe(table);
    }
    // The ones an outside tester found refusing it (the emulator's need one running: test/unit/commands/emulator.test.ts).
    for (const name of ['pay emulator status', 'pay emulator faults', 'pay trigger'])
      expect(
        tables.map((t) => t.name),
        name,
      ).toContain(name);
    for (const argv of [
      ['trigger', '--list', '--wide'],
      ['trigger', '--list', '-o', 'tsv', '--wide'],
    ]) {
      const r = await pay(argv);
      expect(r.code, `${argv.join(' ')}\n${r.stderr}`).toBe(0);
      expect(r.stdout, argv.join(' ')).toContain('transfer.failed');
    }
  });

  it('-o offers csv wherever it offers tsv', () => {
    for (const { name, cmd } of all) {
      const o = cmd.options.find((x) => x.long === '--output');
      if (o?.argChoices?.includes('tsv')) expect(o.argChoices, name).toContain('csv');
    }
  });
});

/** Commands that run until stopped: not run by the --jq check. */
const LONG_RUNNING = ['emulator start', 'webhooks listen', '--follow', '--wait'];

/** The argv with --jq <filter> (replacing one it had, and the -o it may have had). */
function withJq(argv: string[], filter: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--jq' || argv[i] === '-o' || argv[i] === '--output') i++;
    else out.push(argv[i]!);
  }
  return [...out, '--jq', filter];
}

/** What addHelpText put after a command's help (its examples, for tooling commands). */
function helpAfter(cmd: Command): string {
  let text = '';
  cmd.configureOutput({ writeOut: (t) => void (text += t), writeErr: (t) => void (text += t) });
  cmd.outputHelp();
  return text;
}

describe('the README promises', () => {
  it('output flags before the command move after it, --jq and --dry-run included', () => {
    expect(hoistVerbFlags(['--json', 'api', 'GET', 'customers'])).toEqual(['api', 'GET', 'customers', '--json']);
    expect(hoistVerbFlags(['--jq', '.[].id', '-p', 'x', 'customers', 'list'])).toEqual(['-p', 'x', 'customers', 'list', '--jq', '.[].id']);
    expect(hoistVerbFlags(['--dry-run', '--no-header', 'accounts', 'close', 'acc_1'])).toEqual([
      'accounts',
      'close',
      'acc_1',
      '--dry-run',
      '--no-header',
    ]);
  });

  it("a failed request's hint is written for the command: --idempotency-key only where it takes it (table)", () => {
    const KEYED = new Set(['--base-url', '--idempotency-key']);
    const PLAIN = new Set(['--base-url', '--replace']);
    const retry = 'retry safely with --idempotency-key k1';
    const again = 'it may or may not have been done: run it again with --idempotency-key k1 to get its result without doing it twice';
    const cap = 'raise the cap with --max-response-bytes or PAY_MAX_RESPONSE_BYTES';
    const doctor = 'check the base URL (pay doctor), or whether a proxy or captive portal answers';
    const kyc = { code: 'kyc_required', customer_id: 'cus_1', kyc_status: 'not_started' };
    const rules = refusalHint(kyc)!;
    const api =
      (status: number, init: Partial<ConstructorParameters<typeof ApiError>[1]> = {}) =>
      () =>
        new ApiError(`HTTP ${status}`, { status, ...init });
    // [the error, its hint for a command with --idempotency-key, for one without]
    const table: Array<[string, () => PayError, string | undefined, string | undefined]> = [
      ['503 with a key', api(503, { idempotencyKey: 'k1' }), retry, undefined],
      ['503 without a key', api(503), undefined, undefined],
      ['409 in progress', api(409, { apiCode: 'idempotency_request_in_progress', idempotencyKey: 'k1' }), retry, undefined],
      [
        'a replayed refusal',
        api(422, { apiCode: 'kyc_required', idempotencyKey: 'k1', replayed: true, problem: kyc }),
        'the same idempotency key only replays this answer: to try again, send it with a new one (or without --idempotency-key)',
        undefined,
      ],
      ['a refusal of the business rules', api(422, { apiCode: 'kyc_required', idempotencyKey: 'k1', problem: kyc }), rules, rules],
      [
        'a 409 of the rules',
        api(409, { apiCode: 'feature_not_active', problem: { code: 'feature_not_active', customer_id: 'cus_1', feature: 'cards' } }),
        refusalHint({ code: 'feature_not_active', customer_id: 'cus_1', feature: 'cards' }),
        refusalHint({ code: 'feature_not_active', customer_id: 'cus_1', feature: 'cards' }),
      ],
      ['a 404', api(404, { idempotencyKey: 'k1' }), undefined, undefined],
      [
        'a 403 (its own hint)',
        api(403, { hint: 'the key from x is not allowed to do this' }),
        'the key from x is not allowed to do this',
        'the key from x is not allowed to do this',
      ],
      ["a 401 with the Factory's hint", api(401, { hint: 'check PAY_API_KEY' }), 'check PAY_API_KEY', 'check PAY_API_KEY'],
      [
        'a 401 without',
        api(401),
        'check the key with pay profiles show, or log in again with pay login',
        'check the key with pay profiles show, or log in again with pay login',
      ],
      ['the network, with a key', () => new NetworkError('POST /v1/x failed', { idempotencyKey: 'k1' }), retry, undefined],
      ['the network, a GET', () => new NetworkError('GET /v1/x failed'), undefined, undefined],
      ['a bad answer with a key', () => new BadAnswerError('x', 'bad_response', 'k1', {}), again, undefined],
      ['a bad answer', () => new BadAnswerError('x', 'bad_response', undefined, {}), doctor, doctor],
      [
        'a redirect',
        () => new BadAnswerError('x', 'redirect', undefined, {}),
        `pay follows no redirect: ${doctor}`,
        `pay follows no redirect: ${doctor}`,
      ],
      [
        'too large with a key',
        () => new AnswerTooLargeError('x', 'k1', {}),
        `${cap}; run it again with --idempotency-key k1 to get its result without doing it twice`,
        cap,
      ],
      ['too large', () => new AnswerTooLargeError('x', undefined, {}), cap, cap],
      ['not a request', () => new PayError('x', 1, 'x', { hint: 'its own, --state' }), 'its own, --state', 'its own, --state'],
    ];
    for (const [name, make, keyed, plain] of table) {
      for (const [flags, want] of [
        [KEYED, keyed],
        [PLAIN, plain],
      ] as const) {
        const err = make();
        addRequestHint(err, flags);
        expect(err.hint, `${name}, ${[...flags].join(' ')}`).toBe(want);
        // A command's own error that tells the same failure (pay trigger's): the request's hint, then its own.
        const wrapped = new PayError('pay trigger x: y', err.exitCode, err.code, { hint: 'created so far: customer cus_1', cause: make() });
        addRequestHint(wrapped, flags);
        // (the 403's and the Factory's 401 hints are the client error's own: pay trigger copies them itself)
        const own = ['not a request', 'a 403 (its own hint)', "a 401 with the Factory's hint"].includes(name) ? undefined : want;
        expect(wrapped.hint, `${name} wrapped`).toBe(own ? `${own}; created so far: customer cus_1` : 'created so far: customer cus_1');
      }
    }
  });

  it("the service's field errors never name a flag: that is the command's to say", async () => {
    const r = await pay(['api', 'POST', 'customers', '-F', 'email=x'], {
      respond: () => ({
        status: 422,
        body: {
          code: 'validation_error',
          detail: 'bad',
          errors: [
            { field: 'email', code: 'invalid', message: 'no', flag: '--evil-flag' },
            { field: 'zzz', message: 'odd', flag: '--replace' },
          ],
        },
      }),
    });
    expect(r.stderr).not.toContain('--evil-flag');
    expect(r.stderr).not.toContain('(--replace)');
    expect(r.stderr).toMatch(/^ {2}email: no \(-F email=…/m);
  });

  it('a name is close to what was typed only when it is a prefix or one or two letters off', () => {
    for (const [typed, guess] of [
      ['custmers', 'customers'],
      ['seeds', 'seed'],
      ['doc', 'doctor'],
      ['frze', 'freeze'],
      ['--feilds', '--fields'],
    ])
      expect(isClose(typed!, guess!), `${typed} → ${guess}`).toBe(true);
    for (const [typed, guess] of [
      ['tx', 'fx'],
      ['ex', 'fx'],
      ['list', 'kyc'],
      ['zzzz', 'seed'],
      ['abcdef', 'api'],
    ])
      expect(isClose(typed!, guess!), `${typed} → ${guess}`).toBe(false);
  });

  it('an unknown command, subcommand, option or help topic suggests a close name: a prefix, or one or two letters off', () => {
    const program = buildProgram();
    const hint = (argv: string[], message: string) => explainParseError(program, argv, message)[1];
    expect(hint(['cust'], "error: unknown command 'cust'")).toBe('did you mean customers? (add --help for usage)');
    expect(hint(['customers', 'l'], "error: unknown command 'l'")).toBe('did you mean list? (add --help for usage)');
    expect(hint(['cards', 'fr'], "error: unknown command 'fr'")).toBe('did you mean freeze? (add --help for usage)');
    expect(hint(['customers', 'list', '--al'], "error: unknown option '--al'")).toBe('did you mean --all? (add --help for usage)');
    expect(hint(['customers', 'list', '--limt', '3'], "error: unknown option '--limt'\n(Did you mean --limit?)")).toBe(
      'did you mean --limit? (add --help for usage)',
    );
    expect(hint(['--tenat', 'x', 'customers', 'list'], "error: unknown option '--tenat'")).toBe(
      'did you mean --tenant? (add --help for usage)',
    );
    expect(hint(['tx', 'list'], "error: unknown command 'tx'\n(Did you mean fx?)")).toBe('add --help for usage');
    expect(hint(['custmers', 'list'], "error: unknown command 'custmers'\n(Did you mean customers?)")).toBe(
      'did you mean customers? (add --help for usage)',
    );
    expect(explainParseError(program, ['tx'], "error: unknown command 'tx'\n(Did you mean fx?)")[0]).toBe("unknown command 'tx'");
  });

  it('every name of the tree is suggested where it was mistyped: its prefixes and one-letter typos', () => {
    const program = buildProgram();
    const places: Array<{ path: string[]; names: string[]; options: string[] }> = [];
    const walk = (cmd: Command, path: string[]): void => {
      const names = cmd
        .createHelp()
        .visibleCommands(cmd)
        .flatMap((c) => [c.name(), ...c.aliases()]);
      const options: string[] = [];
      for (let c: Command | null = cmd; c; c = c.parent) options.push(...c.options.filter((o) => o.long && !o.hidden).map((o) => o.long!));
      places.push({ path, names, options });
      for (const c of cmd.commands) walk(c, [...path, c.name()]);
    };
    walk(program, []);
    // A prefix, or a name with one letter left out (from four letters on): close, unless too many names are.
    const typos = (name: string, cut: number, pos: number) => [
      name.slice(0, 1 + (cut % name.length)),
      ...(name.length >= 4 ? [name.slice(0, pos % name.length) + name.slice((pos % name.length) + 1)] : []),
    ];
    fc.assert(
      fc.property(fc.constantFrom(...places.filter((p) => p.names.length > 0)), fc.nat(), fc.nat(), fc.nat(), (p, pick, cut, pos) => {
        const name = p.names[pick % p.names.length]!;
        for (const t of typos(name, cut, pos)) {
          if (p.names.includes(t)) continue;
          const guesses = closeNames(t, p.names);
          // The name itself, unless names the typo begins come first (`--ban`: --bank-name before --iban).
          if (guesses.length === 0) expect(p.names.filter((n) => isClose(t, n)).length, t).toBeGreaterThan(5);
          else expect(guesses.includes(name) || guesses.every((g) => g.startsWith(t)), `${t}: ${guesses.join(' ')}`).toBe(true);
          const h = explainParseError(program, [...p.path, t], `error: unknown command '${t}'`)[1];
          expect(h, `${p.path.join(' ')} ${t}`).toBe(
            guesses.length ? `${didYouMean(guesses)} (add --help for usage)` : 'add --help for usage',
          );
        }
      }),
      { numRuns: 400 },
    );
    fc.assert(
      fc.property(fc.constantFrom(...places.filter((p) => p.names.length === 0)), fc.nat(), fc.nat(), fc.nat(), (p, pick, cut, pos) => {
        const option = p.options[pick % p.options.length]!;
        for (const t of typos(option.slice(2), cut, pos).map((x) => `--${x}`)) {
          if (p.options.includes(t)) continue;
          const guesses = closeNames(t, p.options);
          if (guesses.length === 0) expect(p.options.filter((o) => isClose(t, o)).length, t).toBeGreaterThan(5);
          else expect(guesses.includes(option) || guesses.every((g) => g.startsWith(t)), `${t}: ${guesses.join(' ')}`).toBe(true);
          const h = explainParseError(program, [...p.path, t], `error: unknown option '${t}'`)[1];
          expect(h, `${p.path.join(' ')} ${t}`).toBe(
            guesses.length ? `${didYouMean(guesses)} (add --help for usage)` : 'add --help for usage',
          );
        }
      }),
      { numRuns: 400 },
    );
  });

  it('a value flag before the command that took the command as its value says so', () => {
    const program = buildProgram();
    for (const flag of ['--fields', '--jq', '-o', '-p', '--tenant', '--idempotency-key']) {
      const [message, hint] = explainParseError(program, [flag, 'customers', 'list'], "error: unknown command 'list'");
      expect(message).toBe(
        `${flag} took "customers" as its value, so the command was read from the words after it (unknown command 'list')`,
      );
      expect(hint).toBe(`give ${flag} its own value before the command (pay ${flag} <value> customers …), or write it after the command`);
    }
    expect(explainParseError(program, ['--fields=customers', 'list'], "error: unknown command 'list'")[0]).toMatch(
      /^--fields took "customers"/,
    );
  });

  it('errors before a command runs are JSON only when JSON was asked and --jq was not', () => {
    expect(wantsJsonErrors(['customers', 'list', '--json'])).toBe(true);
    expect(wantsJsonErrors(['customers', 'list', '-o', 'ndjson'])).toBe(true);
    expect(wantsJsonErrors(['customers', 'list', '-o', 'ndjson', '--jq', '.'])).toBe(false);
    expect(wantsJsonErrors(['--jq=.', 'customers', 'list', '--json'])).toBe(false);
    expect(wantsJsonErrors(['customers', 'list'])).toBe(false);
  });

  it('every *_at is a time, rendered one way', () => {
    for (const p of ['created_at', 'delivery.last_attempt_at', 'expires_at']) expect(isTimePath(p), p).toBe(true);
    for (const p of ['at', 'status', 'date_of_birth', 'format']) expect(isTimePath(p), p).toBe(false);
    expect(formatTime('2026-11-23T03:46:20.123Z')).toBe('2026-11-23 03:46:20Z');
  });
});
