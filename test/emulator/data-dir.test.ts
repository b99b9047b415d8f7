// The data dir as found (src/emulator/data-dir.ts): the reported losses reproduced through
// `pay emulator start` (the built bin/pay.js): a data dir that lost snapshot-1.jsonl, with a
// stray journal-9.jsonl and snapshot-7.jsonl.tmp, is refused with one line naming them (exit 1),
// nothing changed; --set-aside-unknown moves them aside, says so, and starts. A journal that is
// a link (to a world-readable file, or dangling), a fifo or a folder is refused without writing
// through it or waiting; journals are created 0600; a reset survives a crash at its last step.
import { spawn, spawnSync } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { admin, client, customerBody, removeTempDirs, start, tempDir } from './helpers.js';
import { cleanEnv, PAY_BIN } from '../helpers/run-pay.js';

afterAll(() => removeTempDirs());

/** Every entry of a folder (recursively) with its type and content, LOCK aside. */
function listing(dir: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(dir, rel)).sort()) {
    if (name === 'LOCK') continue;
    const p = rel ? `${rel}/${name}` : name;
    const st = lstatSync(join(dir, p));
    if (st.isDirectory()) Object.assign(out, { [p]: 'dir' }, listing(dir, p));
    else if (st.isFile()) out[p] = readFileSync(join(dir, p)).toString('base64');
    else out[p] = st.isSymbolicLink() ? 'link' : 'other';
  }
  return out;
}

async function customers(emu: Awaited<ReturnType<typeof start>>): Promise<string[]> {
  const api = client(emu);
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const r = await api('GET', `customers?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    ids.push(...(r.body.data as Array<{ id: string }>).map((c) => c.id));
    cursor = r.body.has_more ? (r.body.next_cursor as string) : null;
  } while (cursor);
  return ids;
}

describe('pay emulator start on a data dir it cannot account for', () => {
  it('refuses a journal without its snapshot and stray files (exit 1, one line, nothing changed); --set-aside-unknown moves them and starts', async () => {
    const dir = join(tempDir('pay-datadir-cli-'), 'data dir');
    // 120 customers, compacted into snapshot-1, then 30 more in journal-1.
    let emu = await start({ dataDir: dir });
    const api = client(emu);
    for (let i = 0; i < 120; i++)
      expect((await api('POST', 'customers', { ...customerBody(i), email: `d${i}@dir.example.com` })).status).toBe(201);
    expect((await admin(emu, 'POST', 'compact')).status).toBe(200);
    for (let i = 120; i < 150; i++)
      expect((await api('POST', 'customers', { ...customerBody(i), email: `d${i}@dir.example.com` })).status).toBe(201);
    expect(await customers(emu)).toHaveLength(150);
    await emu.stop();
    // The snapshot is lost; strays appear.
    const snapshot = readFileSync(join(dir, 'snapshot-1.jsonl'));
    rmSync(join(dir, 'snapshot-1.jsonl'));
    writeFileSync(join(dir, 'journal-9.jsonl'), readFileSync(join(dir, 'journal-1.jsonl')));
    writeFileSync(join(dir, 'snapshot-7.jsonl.tmp'), snapshot.subarray(0, 1000));
    const before = listing(dir);

    const env = cleanEnv({ PAY_CONFIG_DIR: tempDir() });
    const r = spawnSync(process.execPath, [PAY_BIN, 'emulator', 'start', '--port', '0', '--data-dir', dir], {
      encoding: 'utf8',
      env,
      timeout: 30_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: cannot start the emulator: the data dir .* holds 3 files the emulator cannot account for: /);
    for (const name of [
      'journal-1.jsonl (a journal without its snapshot',
      'journal-9.jsonl (a journal without its snapshot',
      'snapshot-7.jsonl.tmp (an unfinished snapshot of generation 7',
    ])
      expect(r.stderr).toContain(name);
    expect(r.stderr).toContain(
      `pay emulator start --data-dir '${dir}' --set-aside-unknown moves them into set-aside-<UTC time>/ there (nothing is deleted) and starts`,
    );
    expect(listing(dir)).toEqual(before);

    // Without --data-dir the flag has nothing to act on.
    const usage = spawnSync(process.execPath, [PAY_BIN, 'emulator', 'start', '--port', '0', '--set-aside-unknown'], {
      encoding: 'utf8',
      env,
      timeout: 30_000,
    });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/^error: --set-aside-unknown needs --data-dir\n/);

    const child = spawn(process.execPath, [PAY_BIN, 'emulator', 'start', '--port', '0', '--data-dir', dir, '--set-aside-unknown'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const exit = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    const started = new Promise<void>((done, fail) => {
      child.stderr.on('data', () => /Press Ctrl-C to stop/.test(err) && done());
      void exit.then(() => fail(new Error(`exited:\n${err}`)));
    });
    await started;
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    const moved = /emulator: set aside into "(.*\/(set-aside-\d{8}T\d{6}Z))\/": (.*)\n/.exec(err);
    expect(moved, err).not.toBeNull();
    expect(moved![3]).toMatch(/journal-1\.jsonl \(.*\), journal-9\.jsonl \(.*\), snapshot-7\.jsonl\.tmp \(/);
    const after = listing(dir);
    // Moved, byte for byte; nothing else gone.
    for (const name of ['journal-1.jsonl', 'journal-9.jsonl', 'snapshot-7.jsonl.tmp'])
      expect(after[`${moved![2]}/${name}`]).toBe(before[name]);
    expect(after['keys.json']).toBe(before['keys.json']);
    // Putting the snapshot and journal back brings all 150 back.
    rmSync(join(dir, 'journal-0.jsonl'));
    writeFileSync(join(dir, 'snapshot-1.jsonl'), snapshot);
    cpSync(join(dir, moved![2]!, 'journal-1.jsonl'), join(dir, 'journal-1.jsonl'));
    emu = await start({ dataDir: dir });
    expect(await customers(emu)).toHaveLength(150);
    await emu.stop();
  }, 60_000);
});

describe('a journal that is not a regular file of its own', () => {
  const variants: Array<{ name: string; make: (path: string, outside: string) => void; target?: string }> = [
    {
      name: 'a link to a world-readable file',
      make: (path, outside) => {
        writeFileSync(join(outside, 'shared.log'), 'other data\n', { mode: 0o644 });
        chmodSync(join(outside, 'shared.log'), 0o644);
        symlinkSync(join(outside, 'shared.log'), path);
      },
      target: 'shared.log',
    },
    {
      name: 'a dangling link',
      make: (path, outside) => symlinkSync(join(outside, 'created-by-emulator'), path),
      target: 'created-by-emulator',
    },
    { name: 'a link to a folder', make: (path, outside) => symlinkSync(outside, path) },
    { name: 'a fifo', make: (path) => execFileSync('mkfifo', [path]) },
    { name: 'a folder', make: (path) => mkdirSync(path) },
  ];
  for (const v of variants)
    it(`refuses journal-0.jsonl as ${v.name}, without writing through it or waiting`, async () => {
      const root = tempDir('pay-datadir-link-');
      const dir = join(root, 'data');
      const outside = join(root, 'outside');
      mkdirSync(dir);
      mkdirSync(outside);
      v.make(join(dir, 'journal-0.jsonl'), outside);
      const before = { dir: listing(dir), outside: listing(outside) };
      const refused = await start({ dataDir: dir }).then(
        async (emu) => {
          await emu.stop();
          return undefined;
        },
        (err: Error) => err.message,
      );
      expect(refused).toMatch(
        /holds a file the emulator cannot account for: journal-0\.jsonl \((a symbolic link|a fifo|a folder), not a regular file\)/,
      );
      expect(refused).not.toContain('\n');
      expect({ dir: listing(dir), outside: listing(outside) }).toEqual(before);
      // Nothing was created through a dangling link, nothing appended to its target.
      if (v.target === 'created-by-emulator') expect(existsSync(join(outside, v.target))).toBe(false);
      if (v.target === 'shared.log') expect(readFileSync(join(outside, v.target), 'utf8')).toBe('other data\n');
      // No keys were written into a data dir that was refused.
      expect(existsSync(join(dir, 'keys.json'))).toBe(false);
    });

  it.skipIf(process.getuid?.() !== 0)('refuses a journal that belongs to another user (planted in a shared folder)', async () => {
    const dir = tempDir('pay-datadir-owner-');
    const emu = await start({ dataDir: dir });
    await client(emu)('POST', 'customers', customerBody(1));
    await emu.stop();
    chownSync(join(dir, 'journal-0.jsonl'), 4242, 4242);
    chmodSync(join(dir, 'journal-0.jsonl'), 0o666);
    const before = listing(dir);
    await expect(start({ dataDir: dir })).rejects.toThrow(/journal-0\.jsonl \(it belongs to another user \(uid 4242\)\)/);
    expect(listing(dir)).toEqual(before);
    expect(statSync(join(dir, 'journal-0.jsonl')).mode & 0o777).toBe(0o666);
  });

  it('creates journals 0600, and makes one that others could read 0600 with a warning', async () => {
    const dir = tempDir('pay-datadir-mode-');
    let emu = await start({ dataDir: dir });
    await client(emu)('POST', 'customers', customerBody(1));
    await emu.stop();
    expect(statSync(join(dir, 'journal-0.jsonl')).mode & 0o777).toBe(0o600);
    chmodSync(join(dir, 'journal-0.jsonl'), 0o644);
    const logged: string[] = [];
    emu = await start({ dataDir: dir, log: (l) => logged.push(l) });
    expect(await customers(emu)).toHaveLength(1);
    await emu.stop();
    expect(statSync(join(dir, 'journal-0.jsonl')).mode & 0o777).toBe(0o600);
    expect(logged).toEqual([expect.stringMatching(/^warning: .*journal-0\.jsonl could be read by others \(mode 644\); it is 0600 now$/)]);
    // The snapshot a compaction writes too.
    emu = await start({ dataDir: dir });
    expect((await admin(emu, 'POST', 'compact')).status).toBe(200);
    await emu.stop();
    for (const f of ['snapshot-1.jsonl', 'journal-1.jsonl']) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600);
  });
});

describe('reset', () => {
  it('is a compaction to an empty state: a crash before the old generation is removed starts empty, and removes it', async () => {
    const dir = tempDir('pay-datadir-reset-');
    let emu = await start({ dataDir: dir });
    for (let i = 0; i < 5; i++) await client(emu)('POST', 'customers', customerBody(i));
    const old = join(tempDir(), 'old');
    await emu.stop();
    cpSync(dir, old, { recursive: true });
    emu = await start({ dataDir: dir });
    await emu.admin.reset();
    const kept = (await client(emu)('POST', 'customers', customerBody(9))).body.id as string;
    await emu.stop();
    expect(readdirSync(dir).sort()).toEqual(['journal-1.jsonl', 'keys.json', 'snapshot-1.jsonl']);
    // The state a crash between the switch and the removal leaves: the old journal back beside it.
    cpSync(join(old, 'journal-0.jsonl'), join(dir, 'journal-0.jsonl'));
    const logged: string[] = [];
    emu = await start({ dataDir: dir, log: (l) => logged.push(l) });
    expect(await customers(emu)).toEqual([kept]);
    await emu.stop();
    expect(readdirSync(dir).sort()).toEqual(['journal-1.jsonl', 'keys.json', 'snapshot-1.jsonl']);
    expect(logged.join('\n')).toMatch(/removed what a compaction left, covered by the loaded generation 1: journal-0\.jsonl/);
  });
});

describe('a snapshot is loaded only whole and as written', () => {
  const variants: Array<{ name: string; change: (dir: string) => void; why: RegExp }> = [
    {
      name: 'a letter changed inside a value (still valid JSON)',
      change: (dir) => {
        const p = join(dir, 'snapshot-1.jsonl');
        writeFileSync(p, readFileSync(p, 'utf8').replace('"first_name":"', '"first_name":"X'));
      },
      why: /snapshot-1\.jsonl \(cut or changed: its trailer counts/,
    },
    {
      name: 'a letter swapped for another (same length)',
      change: (dir) => {
        const p = join(dir, 'snapshot-1.jsonl');
        const text = readFileSync(p, 'utf8');
        const at = text.indexOf('"first_name":"') + 14;
        writeFileSync(p, text.slice(0, at) + (text[at] === 'Q' ? 'R' : 'Q') + text.slice(at + 1));
      },
      why: /snapshot-1\.jsonl \(changed: its SHA-256 is not the one its trailer holds\)/,
    },
    {
      name: 'cut at a line boundary (its trailer gone)',
      change: (dir) => {
        const p = join(dir, 'snapshot-1.jsonl');
        const text = readFileSync(p, 'utf8');
        writeFileSync(p, text.slice(0, text.lastIndexOf('\n', text.length - 2) + 1));
      },
      why: /snapshot-1\.jsonl \(cut: it does not end with its trailer\)/,
    },
    { name: 'emptied', change: (dir) => writeFileSync(join(dir, 'snapshot-1.jsonl'), ''), why: /snapshot-1\.jsonl \(empty: cut\)/ },
    {
      name: 'renamed to another generation, with its journal',
      change: (dir) => {
        cpSync(join(dir, 'snapshot-1.jsonl'), join(dir, 'snapshot-2.jsonl'));
        cpSync(join(dir, 'journal-1.jsonl'), join(dir, 'journal-2.jsonl'));
        rmSync(join(dir, 'snapshot-1.jsonl'));
        rmSync(join(dir, 'journal-1.jsonl'));
      },
      why: /snapshot-2\.jsonl \(its header says generation 1, its name 2\)/,
    },
  ];
  for (const v of variants)
    it(`refuses one ${v.name}, changing nothing`, async () => {
      const dir = tempDir('pay-datadir-snap-');
      const emu = await start({ dataDir: dir });
      for (let i = 0; i < 3; i++) await client(emu)('POST', 'customers', customerBody(i));
      expect((await admin(emu, 'POST', 'compact')).status).toBe(200);
      await emu.stop();
      v.change(dir);
      const before = listing(dir);
      const refused = await start({ dataDir: dir }).then(
        async (e) => {
          await e.stop();
          return 'started';
        },
        (err: Error) => err.message,
      );
      expect(refused).toMatch(v.why);
      expect(listing(dir)).toEqual(before);
    });
});

describe('a compaction writes only files of its own', () => {
  it("a link planted where the next generation's journal goes: the compaction is refused (503), the link and its target stay, nothing lost", async () => {
    const root = tempDir('pay-datadir-plant-');
    const dir = join(root, 'data');
    const emu = await start({ dataDir: dir });
    const api = client(emu);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api('POST', 'customers', customerBody(i))).body.id as string);
    writeFileSync(join(root, 'target'), 'someone else\n', { mode: 0o644 });
    symlinkSync(join(root, 'target'), join(dir, 'journal-1.jsonl'));
    const refused = await admin(emu, 'POST', 'compact');
    expect(refused.status).toBe(503);
    expect(lstatSync(join(dir, 'journal-1.jsonl')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(root, 'target'), 'utf8')).toBe('someone else\n');
    // No temporary left behind, the old generation intact and still written to.
    expect(readdirSync(dir).sort()).toEqual(['LOCK', 'journal-0.jsonl', 'journal-1.jsonl', 'keys.json']);
    ids.push((await api('POST', 'customers', customerBody(3))).body.id as string);
    rmSync(join(dir, 'journal-1.jsonl'));
    expect((await admin(emu, 'POST', 'compact')).status).toBe(200);
    await emu.stop();
    const again = await start({ dataDir: dir });
    expect((await customers(again)).sort()).toEqual([...ids].sort());
    await again.stop();
  });
});

describe('the generation before the loaded one, left by a crash before its removal', () => {
  // Issue 24 item 8: it was removed once every record id in it was found loaded, so a journal of a
  // fork, or one edited (a first_name changed), was deleted as "covered". Now a compaction records
  // in the new journal the old journal's and snapshot's length and SHA-256 as it consumed them, and
  // a start removes them only if they are exactly those bytes; anything else refuses naming them,
  // changing nothing (and --set-aside-unknown moves them aside).
  async function base(): Promise<{ dir: string; journal0: Buffer }> {
    const dir = tempDir('pay-datadir-cover-');
    const emu = await start({ dataDir: dir });
    const api = client(emu);
    for (let i = 0; i < 12; i++) expect((await api('POST', 'customers', customerBody(i))).status).toBe(201);
    const journal0 = readFileSync(join(dir, 'journal-0.jsonl'));
    expect((await admin(emu, 'POST', 'compact')).status).toBe(200);
    expect((await api('POST', 'customers', customerBody(20))).status).toBe(201);
    await emu.stop();
    expect(readdirSync(dir).sort()).toEqual(['journal-1.jsonl', 'keys.json', 'snapshot-1.jsonl']);
    return { dir, journal0 };
  }

  it('byte for byte what the compaction consumed: removed, with a line', async () => {
    const { dir, journal0 } = await base();
    writeFileSync(join(dir, 'journal-0.jsonl'), journal0, { mode: 0o600 });
    const logged: string[] = [];
    const emu = await start({ dataDir: dir, log: (l) => logged.push(l) });
    expect(await customers(emu)).toHaveLength(13);
    await emu.stop();
    expect(readdirSync(dir).sort()).toEqual(['journal-1.jsonl', 'keys.json', 'snapshot-1.jsonl']);
    expect(logged.join('\n')).toMatch(
      /removed what a compaction left, covered by the loaded generation 1: journal-0\.jsonl \(byte for byte/,
    );
  });

  it('edited (any letter of any line changed, same length), forked (a line added), cut, or without the record: refused naming it, nothing changed; set aside on request', async () => {
    const { dir, journal0 } = await base();
    const clean = listing(dir);
    const lines = journal0.toString('utf8').trimEnd().split('\n');
    const refuses = async (variant: Buffer, dropRecord = false): Promise<void> => {
      for (const name of readdirSync(dir)) if (!(name in clean) && name !== 'LOCK') rmSync(join(dir, name), { recursive: true });
      const journal1 = Buffer.from(clean['journal-1.jsonl']!, 'base64');
      // An older version's data dir: no coverage line in the new journal.
      writeFileSync(
        join(dir, 'journal-1.jsonl'),
        dropRecord ? journal1.toString('utf8').replace(/^\{"ops":\[\],"compacted":.*\n/m, '') : journal1,
      );
      writeFileSync(join(dir, 'journal-0.jsonl'), variant, { mode: 0o600 });
      const before = listing(dir);
      const err = await start({ dataDir: dir }).then(
        async (emu) => {
          await emu.stop();
          return undefined;
        },
        (e: Error) => e,
      );
      expect(err?.message).toMatch(
        /journal-0\.jsonl \((not the journal compacted into journal-1\.jsonl|journal-1\.jsonl holds no record of what it was compacted from)/,
      );
      expect(err?.message.split('\n')).toHaveLength(1);
      expect(listing(dir)).toEqual(before);
    };
    // Every line, a letter inside it changed to another (what sed on a first_name does).
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.nat(), fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzQXZ'), async (l, at, letter) => {
        const line = lines[l % lines.length]!;
        const letters = [...line.matchAll(/[a-zA-Z]/g)].map((m) => m.index);
        const i = letters[at % letters.length]!;
        fc.pre(line[i] !== letter);
        const edited = [...lines];
        edited[l % lines.length] = line.slice(0, i) + letter + line.slice(i + 1);
        await refuses(Buffer.from(`${edited.join('\n')}\n`));
      }),
      { numRuns: 25 },
    );
    // A fork's line added (a customer put there, never loaded here), a line dropped, a torn end.
    const put = lines.find((l) => l.includes('"p":"customer"'))!;
    await refuses(Buffer.concat([journal0, Buffer.from(`${put.replace(/cus_[A-Za-z0-9]+/, 'cus_forkedforkedfork')}\n`)]));
    await refuses(Buffer.from(`${lines.slice(0, -1).join('\n')}\n`));
    await refuses(journal0.subarray(0, journal0.length - 5));
    // The exact bytes, but the new generation has no record of them (written by an older version).
    await refuses(journal0, true);

    // --set-aside-unknown: moved aside unchanged, and the start goes on.
    const emu = await start({ dataDir: dir, setAsideUnknown: true });
    expect(await customers(emu)).toHaveLength(13);
    await emu.stop();
    const aside = readdirSync(dir).find((n) => n.startsWith('set-aside-'))!;
    expect(readFileSync(join(dir, aside, 'journal-0.jsonl'))).toEqual(journal0);
  });
});

describe('two emulators on one data dir (its LOCK removed by hand)', () => {
  it("the first one's compaction is refused, logged once, and the second one's acknowledged writes stay", async () => {
    const dir = tempDir('pay-datadir-twice-');
    const logged: string[] = [];
    const first = await start({ dataDir: dir, log: (l) => logged.push(l) });
    expect((await client(first)('POST', 'customers', customerBody(0))).status).toBe(201);
    rmSync(join(dir, 'LOCK'));
    const second = await start({ dataDir: dir });
    const theirs: string[] = [];
    for (let i = 1; i <= 10; i++) theirs.push((await client(second)('POST', 'customers', customerBody(i))).body.id as string);
    const r = await admin(first, 'POST', 'compact');
    expect(r.status).toBe(503);
    expect(logged.filter((l) => /LOCK was replaced .*not compacting/.test(l))).toHaveLength(1);
    await second.stop();
    await first.stop();
    expect(readdirSync(dir).sort()).toEqual(['journal-0.jsonl', 'keys.json']);
    const emu = await start({ dataDir: dir });
    expect(await customers(emu)).toEqual(expect.arrayContaining(theirs));
    await emu.stop();
  });
});
