// `pay emulator requests --path`: the glob the emulator runs over its whole log (four times a
// second under --follow) with a pattern from the command line. Checked against a plain recursive
// reading of the same rules over generated patterns and paths, against the old regex reading where
// the two agree (no `**`), and for hangs: pathological patterns over long paths, run in a worker
// that is stopped after a generous guard (the backtracking regex this replaced took 49 s for one
// 50-character path; this does them all in about a second), so a hang fails the test instead of
// blocking the test worker.
import { Worker } from 'node:worker_threads';
import { build } from 'esbuild';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pathMatcher } from '../../src/shared/request-filter.js';

/** The rules read literally: exponential, for short inputs only. */
function refSegment(glob: string, s: string): boolean {
  if (glob === '') return s === '';
  if (glob[0] === '*') return refSegment(glob.slice(1), s) || (s !== '' && refSegment(glob, s.slice(1)));
  return s !== '' && s[0] === glob[0] && refSegment(glob.slice(1), s.slice(1));
}
function refSegments(globs: string[], segs: string[]): boolean {
  if (globs.length === 0) return segs.length === 0;
  const [g, ...rest] = globs as [string, ...string[]];
  if (/^\*{2,}$/.test(g)) return refSegments(rest, segs) || (segs.length > 0 && refSegments(globs, segs.slice(1)));
  return segs.length > 0 && refSegment(g, segs[0]!) && refSegments(rest, segs.slice(1));
}
const reference = (pattern: string, path: string): boolean => refSegments(pattern.split('/'), path.split('/'));

/** The reading before the segment matcher, for patterns without `**` (where nothing changed). */
function oldRegex(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*+/g, '[^/]*');
  return new RegExp(`^${body}$`);
}

const text = (chars: string[], max: number) => fc.array(fc.constantFrom(...chars), { maxLength: max }).map((a) => a.join(''));
const globs = text(['a', 'b', '/', '*', '*', '.'], 14).map((g) => `/${g}`);
const paths = text(['a', 'b', '/', '.'], 14).map((p) => `/${p}`);

describe('--path globs', () => {
  it('match as the rules read (a ** segment any number of segments, * within one), for generated patterns and paths', () => {
    fc.assert(
      fc.property(globs, paths, (g, p) => {
        const pattern = g.includes('*') ? g : `${g}*`;
        expect(pathMatcher(pattern)!(p), `${pattern} ~ ${p}`).toBe(reference(pattern, p));
      }),
      { numRuns: 5000 },
    );
  });

  it('a path matching the pattern, built from it, matches', () => {
    // Fill each star with generated text: the match must be found however the stars are filled.
    const fill = text(['a', 'b', '.'], 6);
    const segFill = fc.array(text(['a', 'b'], 4), { maxLength: 3 });
    fc.assert(
      fc.property(
        globs,
        fc.array(fill, { minLength: 20, maxLength: 20 }),
        fc.array(segFill, { minLength: 20, maxLength: 20 }),
        (g, fills, segs) => {
          const pattern = g.includes('*') ? g : `${g}*`;
          let n = 0;
          const out: string[] = [];
          for (const seg of pattern.split('/')) {
            if (/^\*{2,}$/.test(seg)) out.push(...segs[n++ % 20]!);
            else out.push(seg.replace(/\*+/g, () => fills[n++ % 20]!));
          }
          const path = out.join('/');
          expect(reference(pattern, path), `${pattern} ~ ${path}`).toBe(true);
          expect(pathMatcher(pattern)!(path), `${pattern} ~ ${path}`).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('without **, as before: * any characters but /', () => {
    fc.assert(
      fc.property(globs, paths, (g, p) => {
        const pattern = g.replace(/\*{2,}/g, '*');
        fc.pre(pattern.includes('*'));
        expect(pathMatcher(pattern)!(p), `${pattern} ~ ${p}`).toBe(oldRegex(pattern).test(p));
      }),
      { numRuns: 3000 },
    );
  });

  it('the documented cases', () => {
    const m = (pattern: string, path: string) => pathMatcher(pattern)!(path);
    expect(m('customers/*/kyc', '/v1/customers/cus_1/kyc')).toBe(true);
    expect(m('customers/*/kyc', '/v1/customers/a/b/kyc')).toBe(false);
    expect(m('/v1/**/kyc', '/v1/customers/a/b/kyc')).toBe(true);
    expect(m('/v1/**/kyc', '/v1/kyc')).toBe(true);
    expect(m('/v1/**/kyc', '/v1/customers/kyc/x')).toBe(false);
    expect(m('/v1/customers/**', '/v1/customers/cus_1/kyc')).toBe(true);
    expect(m('/v1/customers/**', '/v1/customersX')).toBe(false);
    expect(m('**/kyc', '/v1/customers/cus_1/kyc')).toBe(true);
    // `**` inside a segment is a `*`: it stays in its segment.
    expect(m('/v1/cus**', '/v1/customers')).toBe(true);
    expect(m('/v1/cus**', '/v1/customers/cus_1')).toBe(false);
    expect(m('/v1/*s/*_1', '/v1/customers/cus_1')).toBe(true);
    expect(m('/v1/*s/*_1', '/v1/customers/cus_12')).toBe(false);
  });

  it('pathological patterns over long paths finish at once (hang guard: a worker stopped after 60 s)', async () => {
    const bundle = await build({
      entryPoints: [new URL('../../src/shared/request-filter.ts', import.meta.url).pathname],
      bundle: true,
      write: false,
      format: 'cjs',
      platform: 'node',
    });
    const code = bundle.outputFiles[0]!.text;
    // Generated variants of the classic backtracking traps: k stars before a letter that is not
    // there, within a segment, with `**` inside a segment, and as runs of segments between `**`s.
    const cases = fc.sample(
      fc.record({ k: fc.integer({ min: 8, max: 95 }), n: fc.integer({ min: 50, max: 4000 }), letter: fc.constantFrom('a', 'x') }),
      { numRuns: 12, seed: 7 },
    );
    const work: [string, string][] = [['/v1/' + '*a'.repeat(8) + '*b', '/v1/' + 'a'.repeat(46)]];
    for (const { k, n, letter } of cases) {
      work.push(['/v1/' + `*${letter}`.repeat(k) + '*b', '/v1/' + 'a'.repeat(n)]);
      work.push(['/v1/' + `**${letter}`.repeat(k) + '**b', '/v1' + '/a'.repeat(n >> 1)]);
      work.push(['/v1/' + `**/${letter}/`.repeat(k) + 'b', '/v1' + '/a'.repeat(n >> 1)]);
      work.push(['/**/' + `${letter}/`.repeat(k) + 'b/**', '/v1' + '/a'.repeat(n >> 1)]);
    }
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const module = { exports: {} };
       new Function('module', 'exports', 'require', workerData.code)(module, module.exports, require);
       let matched = 0;
       for (const [pattern, path] of workerData.work) {
         const m = module.exports.pathMatcher(pattern);
         if (!m) throw new Error('refused: ' + pattern);
         // The emulator's log holds up to 1000 entries.
         for (let i = 0; i < 1000; i++) if (m(path)) matched++;
       }
       parentPort.postMessage(matched);`,
      { eval: true, workerData: { code, work } },
    );
    let guard: NodeJS.Timeout | undefined;
    try {
      const outcome = await Promise.race([
        new Promise<number>((resolve, reject) => {
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
        new Promise<'hung'>((resolve) => (guard = setTimeout(() => resolve('hung'), 60_000))),
      ]);
      expect(outcome).toBe(0);
    } finally {
      clearTimeout(guard);
      await worker.terminate();
    }
  });
});
