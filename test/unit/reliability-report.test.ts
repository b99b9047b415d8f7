// The reliability topic's table (src/docs/topics/reliability.md, written by
// test/reliability/report.mjs from the figures the suite records) has exactly one row per check
// the suite records, so it cannot silently go stale; and the report prefers full-count figures,
// keeps rows it has no figures for, and leaves the rest of the file alone.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { END, recordIds, START } from '../reliability/report.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const REPORT = join(ROOT, 'test/reliability/report.mjs');
const readme = readFileSync(join(ROOT, 'src/docs/topics/reliability.md'), 'utf8');

function rows(text: string): string[][] {
  const t = text.slice(text.indexOf(START) + START.length, text.indexOf(END));
  return t
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) => l.slice(2, -2).split(/ (?<!\\)\| /));
}

describe("the reliability topic's table", () => {
  it('is in the "# Reliability" topic, which says how to reproduce it', () => {
    const s = readme;
    expect(s.startsWith('# Reliability\n')).toBe(true);
    expect(s).toContain(START);
    expect(s).toContain(END);
    expect(s).toContain('`npm run test:reliability`');
    expect(s).toContain('`PAY_RELIABILITY_FULL=1 npm run test:reliability`');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['test:reliability']).toMatch(
      /^PAY_FUZZ_SEED=\$\{PAY_FUZZ_SEED:-random\} vitest run --config test\/vitest\.config\.ts test\/reliability && node test\/reliability\/report\.mjs$/,
    );
  });

  it('has one measured row for every check the suite records, and no other', () => {
    const ids = recordIds();
    expect(ids.length).toBeGreaterThanOrEqual(12);
    expect(ids).toEqual(expect.arrayContaining(['webhooks.verify', 'tenancy.isolation']));
    const table = rows(readme);
    const inTable = table.map((r) => /^`([^`]+)`/.exec(r[0]!)?.[1]);
    expect([...inTable].sort()).toEqual([...ids].sort());
    for (const r of table) {
      expect(r, r[0]).toHaveLength(10);
      const [, mode, tried, passed, lost, duplicated, leaked, , duration, measured] = r;
      expect(mode, `${r[0]} was never measured: run npm run test:reliability`).toMatch(/^(default|full)$/);
      for (const n of [tried, passed, lost, duplicated, leaked]) expect(n).toMatch(/^\d+$/);
      expect(Number(passed)).toBeLessThanOrEqual(Number(tried));
      expect(duration).toMatch(/^\d+(\.\d)? s$|^\d+ min \d\d s$/);
      expect(measured).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });
});

describe('report.mjs', () => {
  const figure = (mode: string, tried: number, extra?: Record<string, number>) => ({
    title: `t ${mode}`,
    mode,
    tried,
    passed: tried,
    lost: 0,
    duplicated: 0,
    leaked: 0,
    ...(extra ? { extra } : {}),
    at: '2030-01-02T03:04:05.000Z',
    duration_ms: 61_500,
  });
  const run = (figures: unknown, text: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'pay-report-'));
    writeFileSync(join(dir, 'fig.json'), JSON.stringify(figures));
    writeFileSync(join(dir, 'README.md'), text);
    const r = spawnSync(process.execPath, [REPORT, join(dir, 'fig.json'), join(dir, 'README.md')], { encoding: 'utf8' });
    return { ...r, readme: readFileSync(join(dir, 'README.md'), 'utf8') };
  };

  it('writes full figures over default ones, keeps rows without figures, leaves the rest alone, and is idempotent', () => {
    const before = `# x\n\n## Reliability\n\ntext\n\n${START}\n| \`tenancy.isolation\` kept | default | 5 | 5 | 0 | 0 | 0 |  | 1.0 s | 2029-01-01 |\n| \`gone.check\` stale | default | 1 | 1 | 0 | 0 | 0 |  | 1.0 s | 2029-01-01 |\n${END}\n\n## Design\n\nmore\n`;
    const figures = {
      version: 1,
      tests: {
        'webhooks.verify': {
          default: figure('default', 10),
          full: figure('full', 1000, { seed: 7, status_200: 3, status_404: 4, known_gap_417: 1, ids: 9 }),
        },
      },
    };
    const r = run(figures, before);
    expect(r.status, r.stderr).toBe(0);
    const out = r.readme;
    expect(out.startsWith('# x\n\n## Reliability\n\ntext\n\n')).toBe(true);
    expect(out.endsWith(`${END}\n\n## Design\n\nmore\n`)).toBe(true);
    expect(out).toContain(
      '| `webhooks.verify` t full | full | 1000 | 1000 | 0 | 0 | 0 | ids 9, status 200×3 404×4, known gap 417: 1 | 1 min 02 s | 2030-01-02 |',
    );
    expect(out).toContain('| `tenancy.isolation` kept | default | 5 |');
    expect(out).not.toContain('gone.check');
    expect(out).toMatch(/\| `crash\.seed` \| not measured yet \|/);
    expect(run(figures, out).readme).toBe(out);
  });

  it('fails with one line without markers or without figures', () => {
    const noMarkers = run({ version: 1, tests: {} }, '# x\n');
    expect(noMarkers.status).toBe(1);
    expect(noMarkers.stderr).toMatch(
      /^report: .*README\.md: the reliability topic has no <!-- reliability:start --> … <!-- reliability:end --> markers\n$/,
    );
    const dir = mkdtempSync(join(tmpdir(), 'pay-report-'));
    const noFigures = spawnSync(process.execPath, [REPORT, join(dir, 'missing.json'), join(dir, 'README.md')], { encoding: 'utf8' });
    expect(noFigures.status).toBe(1);
    expect(noFigures.stderr).toMatch(/^report: cannot read .*missing\.json \(ENOENT\); run the suite first/);
  });
});
