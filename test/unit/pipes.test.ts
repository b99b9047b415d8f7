// Scripts and pipelines (issue 15), in process: the CSV writer against RFC 4180 (its output read
// back by pay's own CSV reader), the formula guard and the terminal; jq's output as jq -r prints
// it, escaped on a terminal; --fields against the contract for every verb; the declarations
// every command needs for --jq, --fields and --dry-run; close-name suggestions.
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasField, operationFields } from '../../src/api/response-fields.js';
import { Command } from 'commander';
import { closeName, commanderSuggestion, hoistVerbFlags } from '../../src/argv.js';
import { fitToCommand } from '../../src/cmdutil/dispatch.js';
import { ApiError, PayError } from '../../src/lib/errors.js';
import { readRows } from '../../src/bulk/input.js';
import type { CommandDecl } from '../../src/cmdutil/decl.js';
import { specOf } from '../../src/cmdutil/registry.js';
import { buildProgram } from '../../src/cmdutil/tree.js';
import { allGroups } from '../../src/commands/groups.js';
import { TOOLING } from '../../src/commands/index.js';
import { csvField, csvHeader, csvRecord } from '../../src/io/csv.js';
import { compileJq, render } from '../../src/io/jq.js';
import { formatTime, isTimePath } from '../../src/io/output.js';
import { pay } from './commands/harness.js';

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
    } finally {
      delete process.env.PAY_JQ_TEST_SECRET;
    }
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

  it('every command with --fields checks it: verbs against their operation, other commands against their declared fields', () => {
    const decls = (list: readonly CommandDecl[]): CommandDecl[] => list.flatMap((d) => [d, ...decls(d.subcommands ?? [])]);
    for (const d of decls(TOOLING)) if (d.output?.projection) expect(d.output.fields?.length, d.name).toBeGreaterThan(0);
    for (const { name, cmd } of all) {
      const verb = specOf.get(cmd)?.verb;
      if (verb && cmd.options.some((o) => o.long === '--fields')) expect(verb.operationId, name).not.toBe('');
    }
  });

  it('-o offers csv wherever it offers tsv', () => {
    for (const { name, cmd } of all) {
      const o = cmd.options.find((x) => x.long === '--output');
      if (o?.argChoices?.includes('tsv')) expect(o.argChoices, name).toContain('csv');
    }
  });
});

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

  it('hints and field errors name only flags the command has', () => {
    const root = new Command('pay').option('--base-url <url>');
    const cmd = root.command('seed').option('--replace');
    const err = new ApiError('HTTP 503', {
      status: 503,
      hint: 'retry safely with --idempotency-key k1; or pass --base-url to talk to another service',
      fieldErrors: [
        { field: 'email', message: 'is required', flag: '--email' },
        { field: 'x', message: 'bad', flag: '--replace' },
      ],
    });
    fitToCommand(err, cmd);
    expect(err.hint).toBe('or pass --base-url to talk to another service');
    expect(err.fieldErrors.map((f) => f.flag)).toEqual([undefined, '--replace']);
    const none = new PayError('x', 1, 'x', { hint: 'retry with --idempotency-key k' });
    fitToCommand(none, cmd);
    expect(none.hint).toBeUndefined();
    const api = root.command('api').option('--idempotency-key <key>');
    const kept = new PayError('x', 1, 'x', { hint: 'retry safely with --idempotency-key k' });
    fitToCommand(kept, api);
    expect(kept.hint).toBe('retry safely with --idempotency-key k');
    // A whole other command spelled out in a hint keeps its own flags (a refusal of the business rules says what to run).
    const other = new PayError('x', 1, 'x', {
      hint: 'verify the customer: pay kyc verify cus_1, then pay kyc submit-document cus_1 --type passport; then pay features activate cus_1 --feature cards; or pass --feature',
    });
    fitToCommand(other, cmd);
    expect(other.hint).toBe(
      'verify the customer: pay kyc verify cus_1, then pay kyc submit-document cus_1 --type passport; then pay features activate cus_1 --feature cards',
    );
  });

  it('an unknown command suggests only a close name', () => {
    for (const [typed, guess] of [
      ['custmers', 'customers'],
      ['seeds', 'seed'],
      ['doc', 'doctor'],
      ['frze', 'freeze'],
      ['--feilds', '--fields'],
    ])
      expect(closeName(typed!, guess!), `${typed} → ${guess}`).toBe(true);
    for (const [typed, guess] of [
      ['tx', 'fx'],
      ['ex', 'fx'],
      ['list', 'kyc'],
      ['zzzz', 'seed'],
      ['abcdef', 'api'],
    ])
      expect(closeName(typed!, guess!), `${typed} → ${guess}`).toBe(false);
    expect(commanderSuggestion("unknown command 'tx'\n(Did you mean fx?)")).toEqual(["unknown command 'tx'", 'add --help for usage']);
    expect(commanderSuggestion("unknown command 'custmers'\n(Did you mean customers?)")).toEqual([
      "unknown command 'custmers'",
      'did you mean customers? (add --help for usage)',
    ]);
  });

  it('every *_at is a time, rendered one way', () => {
    for (const p of ['created_at', 'delivery.last_attempt_at', 'expires_at']) expect(isTimePath(p), p).toBe(true);
    for (const p of ['at', 'status', 'date_of_birth', 'format']) expect(isTimePath(p), p).toBe(false);
    expect(formatTime('2026-11-23T03:46:20.123Z')).toBe('2026-11-23 03:46:20Z');
  });
});
