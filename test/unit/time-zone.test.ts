// The one time formatter reads this process's zone with Date's local getters and names it from
// TZ or /etc/localtime (no Intl on the way: its first DateTimeFormat costs more than the rest of an
// API command). Checked against Intl in child processes, one per zone, over generated instants:
// the same wall clock, and the same zone name Intl gives where TZ names a canonical zone.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'pay-time-'));
const bundle = join(dir, 'time.mjs');
buildSync({
  entryPoints: [new URL('../../src/io/time.ts', import.meta.url).pathname],
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: bundle,
  logLevel: 'silent',
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHILD = `
import { formatTime, localZone } from ${JSON.stringify(bundle)};
const instants = JSON.parse(process.argv[1]);
const zone = localZone(process.env);
const intl = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
const byIntl = (ms) => { const p = {}; for (const x of intl.formatToParts(ms)) p[x.type] = x.value; return p.year.padStart(4, '0') + '-' + p.month + '-' + p.day + ' ' + p.hour + ':' + p.minute + ':' + p.second; };
const wrong = [];
for (const ms of instants) {
  const iso = new Date(ms).toISOString();
  const got = formatTime(iso, { mode: 'local', zone });
  if (!/Z$/.test(got) && got !== byIntl(ms)) wrong.push([iso, got, byIntl(ms)]);
}
process.stdout.write(JSON.stringify({ zone, intlZone: new Intl.DateTimeFormat('en-US').resolvedOptions().timeZone, wrong }));
`;

function inZone(tz: string, instants: number[]): { zone: string; intlZone: string; wrong: string[][] } {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD, JSON.stringify(instants)], {
    env: { PATH: process.env.PATH, TZ: tz },
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { zone: string; intlZone: string; wrong: string[][] };
}

describe('local times without Intl', () => {
  const ZONES = ['Europe/Paris', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/Sao_Paulo', 'UTC'];
  // Around daylight-saving changes and far from them, 1901–2100.
  const instants = fc.sample(fc.integer({ min: Date.UTC(1901, 0, 1), max: Date.UTC(2100, 0, 1) }), { numRuns: 300 });

  it.each(ZONES)('%s: the wall clock Date gives is the one Intl gives, and the zone is named as TZ says', (tz) => {
    const r = inZone(tz, instants);
    expect(r.wrong).toEqual([]);
    expect(r.zone).toBe(tz);
  });

  it('a TZ that is not a zone name (a path, a POSIX rule, garbage) is not taken as a name: Intl decides (UTC where it has none)', () => {
    for (const tz of ['../../etc/passwd', '/etc/localtime', 'EST5EDT,M3.2.0,M11.1.0', 'Nowhere/Land', 'Europe/../Europe/Paris']) {
      const r = inZone(tz, instants.slice(0, 20));
      expect(r.zone, tz).toBe(r.intlZone ?? 'UTC');
      expect(r.wrong, tz).toEqual([]);
    }
  });
});
