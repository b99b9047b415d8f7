// undici is patched by text replacement as the build bundles it (src/scripts/build.mjs): the
// installed version must be one the patches were written for (src/scripts/undici-version.mjs),
// package.json pins it exactly (a range would let npm install another), and the lock file agrees.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UNDICI_PATCHED, undiciRefusal } from '../../src/scripts/undici-version.mjs';

const root = new URL('../../', import.meta.url).pathname;
const json = (path: string): any => JSON.parse(readFileSync(root + path, 'utf8'));

describe('undici: pinned to a version the build patches', () => {
  it('the installed undici is one the build knows', () => {
    const installed: string = json('node_modules/undici/package.json').version;
    expect(
      UNDICI_PATCHED.includes(installed),
      `installed undici ${installed} is not one the build's patches know (${UNDICI_PATCHED.join(', ')}): check the patches in src/scripts/build.mjs against it, then add it to src/scripts/undici-version.mjs`,
    ).toBe(true);
  });

  it('package.json pins it exactly, and the lock file says the same', () => {
    const pinned: string = json('package.json').dependencies.undici;
    expect(pinned, `package.json's undici is "${pinned}": pin one version the build patches, not a range`).toMatch(/^\d+\.\d+\.\d+$/);
    expect(UNDICI_PATCHED).toContain(pinned);
    const lock = json('package-lock.json');
    expect(lock.packages[''].dependencies.undici).toBe(pinned);
    expect(lock.packages['node_modules/undici'].version).toBe(pinned);
  });

  it('the build refuses any other version in one line, naming it', () => {
    expect(undiciRefusal(UNDICI_PATCHED[0]!)).toBeUndefined();
    for (const v of ['7.30.3', '7.31.0', '8.0.0', '7.3.2', '7.30.2-rc.1', '', '7.30.2 ']) {
      const line = undiciRefusal(v);
      expect(line, v).toMatch(/^build: undici .* is installed, but the build's patches were written for undici /);
      expect(line).toContain(`undici ${v} is installed`);
      expect(line).toContain(`written for undici ${UNDICI_PATCHED.join(', ')}: `);
      expect(line).not.toContain('\n');
    }
  });

  it('the build script calls the check before bundling anything', () => {
    const build = readFileSync(root + 'src/scripts/build.mjs', 'utf8');
    const check = build.indexOf("undiciRefusal(JSON.parse(readFileSync(join(root, 'node_modules', 'undici', 'package.json')");
    expect(check).toBeGreaterThan(0);
    expect(check).toBeLessThan(build.indexOf('await build('));
  });
});
