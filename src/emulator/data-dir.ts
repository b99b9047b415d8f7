// The data dir's files judged before anything is loaded, created or removed: every name must be
// one the emulator writes, of the right type, in a generation the files present explain. What a
// compaction left (the generation before a verified newer snapshot, an unfinished snapshot, the
// new journal that went with it) is removed after the load, once proven covered (journal.ts open:
// the generation before must be byte for byte what the compaction recorded in the new journal's
// coverage line); anything else refuses the start with one line naming it,
// and changes nothing; `--set-aside-unknown` (setAsideUnknown) moves it into
// set-aside-<UTC time>/ in the data dir instead: nothing the emulator does not understand is ever
// deleted. A temporary of keys.json or webhooks.json (a write that never reached its rename) is
// set aside at start, with a line.
//
// The generations (journal.ts): generation 0 is journal-0.jsonl alone; generation N > 0 is
// snapshot-N.jsonl (the whole state) and journal-N.jsonl (what came after it). A compaction from
// N to N+1 writes snapshot-(N+1) under a temporary name, opens journal-(N+1), renames the
// snapshot into place, then removes generation N; a reset is a compaction to an empty state.
// A snapshot starts with a header line naming its generation and ends with a trailer holding
// the length and SHA-256 of everything before it, so a cut or changed snapshot is seen (older
// snapshots, without header, load as before).
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  type Stats,
} from 'node:fs';
import { join } from 'node:path';
import { readWhole } from './small-file.js';
import type { Kind } from './types.js';

const GEN = '(0|[1-9]\\d{0,14})';
const JOURNAL_RE = new RegExp(`^journal-${GEN}\\.jsonl$`);
const SNAPSHOT_RE = new RegExp(`^snapshot-${GEN}\\.jsonl$`);
/** An unfinished snapshot: `snapshot-N.jsonl.<16 hex>.tmp` (and `snapshot-N.jsonl.tmp`, as earlier versions named it). */
const SNAPSHOT_TMP_RE = new RegExp(`^snapshot-${GEN}\\.jsonl(?:\\.[0-9a-f]{16})?\\.tmp$`);
/** The other modules' files, left to them: keys.json (auth.ts), webhooks.json (webhook-file.ts), LOCK (lock.ts). */
const OTHERS = new Set(['keys.json', 'webhooks.json', 'LOCK']);
/**
 * A temporary of keys.json, webhooks.json or the LOCK (a write that never reached its rename or link:
 * never in effect). Set aside automatically, with a line. Must match the temporary names of their writer.
 */
const SETTINGS_TMP_RE = /^\.?(?:keys\.json|webhooks\.json|LOCK(?:\.takeover-[0-9a-f]{1,64})?)(?:\.[A-Za-z0-9_-]{1,64})?\.tmp$/;
/** What a take-over of a gone holder's LOCK (src/shared/lock.ts) leaves if it is cut short: its claim, `LOCK.takeover-<24 hex>`. Set aside with a line, like the temporaries. */
const LOCK_CLAIM_RE = /^LOCK\.takeover-[0-9a-f]{1,64}$/;
const SET_ASIDE_RE = /^set-aside-\d{8}T\d{6}Z(?:-\d{1,4})?$/;
/** Not the emulator's, and read by nothing: left alone (a file system's root, a Finder window). */
const SYSTEM = new Set(['lost+found', '.DS_Store']);

export const journalName = (gen: number): string => `journal-${gen}.jsonl`;
export const snapshotName = (gen: number): string => `snapshot-${gen}.jsonl`;

export interface Problem {
  name: string;
  why: string;
}

export interface DataDirPlan {
  /** The current generation (0: no snapshot). */
  gen: number;
  /** Whether journal-<gen>.jsonl is there (a new data dir has none yet). */
  journal: boolean;
  /** Files an interrupted compaction left, provably covered by the current generation: removed once it has loaded. */
  superseded: Problem[];
  /** Temporaries of the settings files: set aside at start. */
  settingsLeftovers: string[];
  /** What refuses the start (or, with setAsideUnknown, is set aside). */
  problems: Problem[];
}

/** One line, shell-safe enough to paste: control characters and quotes shown escaped. */
export function showName(name: string): string {
  return /^[\w.+@%,:=/-]+$/.test(name)
    ? name
    : JSON.stringify(name).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function shellWord(s: string): string {
  return /^[\w.+@%,:=/-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}

function kindOf(st: Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a fifo';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** The start refused: the data dir holds files the emulator cannot account for. */
export class DataDirRefused extends Error {
  constructor(
    readonly dir: string,
    readonly problems: Problem[],
  ) {
    const n = problems.length;
    const shown = problems
      .slice(0, 6)
      .map((p) => `${showName(p.name)} (${p.why})`)
      .join(', ');
    const more = n > 6 ? ` and ${n - 6} more` : '';
    super(
      `the data dir ${showName(dir)} holds ${n === 1 ? 'a file' : `${n} files`} the emulator cannot account for: ${shown}${more}; ` +
        `pay emulator start --data-dir ${shellWord(dir)} --set-aside-unknown moves ${n === 1 ? 'it' : 'them'} into set-aside-<UTC time>/ there ` +
        `(nothing is deleted) and starts`,
    );
  }
}

/** Opens a file to read, never through a link and never waiting (a fifo); undefined if it is not a regular file. */
export function readRegular(path: string): Buffer | undefined {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    return readWhole(fd, st.size);
  } finally {
    closeSync(fd);
  }
}

// ---------------------------------------------------------------------------------------------
// The snapshot format: header, lines of ops, trailer. Header and trailer carry no ops, so any
// reader of `{"ops":[…]}` lines reads them as empty.

/** `reset`: the snapshot of a reset (empty by request: what the generation before held is forgotten, not lost). */
export const snapshotHeader = (gen: number, reset = false): Buffer =>
  Buffer.from(`{"ops":[],"snapshot":{"gen":${gen},"format":2${reset ? ',"reset":true' : ''}}}\n`);

export const snapshotTrailer = (bytes: number, sha256: string): Buffer =>
  Buffer.from(`{"ops":[],"end":{"bytes":${bytes},"sha256":"${sha256}"}}\n`);

const HEADER_RE = /^\{"ops":\[\],"snapshot":\{"gen":(\d+),"format":2(,"reset":true)?\}\}$/;

/** Whether a snapshot's bytes are those of a reset's (see snapshotHeader). */
export const isResetSnapshot = (buf: Buffer): boolean =>
  HEADER_RE.exec(buf.subarray(0, Math.max(0, buf.indexOf(10))).toString('utf8'))?.[2] !== undefined;
const TRAILER_RE = /^\{"ops":\[\],"end":\{"bytes":(\d+),"sha256":"([0-9a-f]{64})"\}\}$/;

/**
 * Why a snapshot's bytes are not whole (undefined: they are). `hash`: also check its SHA-256
 * (else only its header, length and trailer). A snapshot without header (written before the
 * format had one) passes; its lines are checked as they are replayed.
 */
export function snapshotFault(buf: Buffer, gen: number, hash: boolean): string | undefined {
  return endsFault({ head: buf, tail: buf, tailAt: 0, size: buf.length }, gen, hash ? buf : undefined);
}

/** A file's two ends: `head` from its start, `tail` from `tailAt` to its end (`size`). */
interface Ends {
  head: Buffer;
  tail: Buffer;
  tailAt: number;
  size: number;
}

function endsFault(f: Ends, gen: number, whole?: Buffer): string | undefined {
  if (f.size === 0) return 'empty: cut';
  const firstEnd = f.head.indexOf(10);
  const first = f.head.subarray(0, firstEnd < 0 ? Math.min(f.head.length, 200) : firstEnd).toString('utf8');
  const header = HEADER_RE.exec(first);
  if (!header) return first.startsWith('{"ops":[],"snapshot"') ? 'its first line is damaged' : undefined;
  if (Number(header[1]) !== gen) return `its header says generation ${header[1]}, its name ${gen}`;
  if (f.tail[f.tail.length - 1] !== 10) return 'cut: it does not end with its trailer';
  const nl = f.tail.lastIndexOf(10, f.tail.length - 2);
  // A trailer is one short line: one that starts before the tail read is not one.
  if (nl < 0 && f.tailAt > 0) return 'cut: it does not end with its trailer';
  const lastStart = f.tailAt + nl + 1;
  const trailer = TRAILER_RE.exec(f.tail.subarray(nl + 1, f.tail.length - 1).toString('utf8'));
  if (!trailer) return 'cut: it does not end with its trailer';
  if (Number(trailer[1]) !== lastStart) return `cut or changed: its trailer counts ${trailer[1]} bytes before it, there are ${lastStart}`;
  if (whole && createHash('sha256').update(whole.subarray(0, lastStart)).digest('hex') !== trailer[2])
    return 'changed: its SHA-256 is not the one its trailer holds';
  return undefined;
}

/**
 * What a compaction from generation `from` consumed, recorded in the new generation's journal (a
 * line of no ops): the old journal's and snapshot's length and SHA-256 as they were compacted. A
 * start removes the old generation's files only if they are exactly these bytes.
 */
export interface Coverage {
  from: number;
  journal: { bytes: number; sha256: string };
  snapshot?: { bytes: number; sha256: string };
}

const COVERAGE_PREFIX = '{"ops":[],"compacted":';

export const coverageLine = (c: Coverage): Buffer => Buffer.from(`${JSON.stringify({ ops: [], compacted: c })}\n`);

/** The coverage record a journal holds (its first), or undefined. */
export function findCoverage(buf: Buffer): { coverage: Coverage; at: number; end: number } | undefined {
  const at = buf.indexOf(COVERAGE_PREFIX);
  if (at < 0 || (at > 0 && buf[at - 1] !== 10)) return undefined;
  const end = buf.indexOf(10, at);
  if (end < 0) return undefined;
  try {
    const c = (JSON.parse(buf.subarray(at, end).toString('utf8')) as { compacted?: Coverage }).compacted;
    const ok = (x: unknown): boolean =>
      typeof x === 'object' &&
      x !== null &&
      Number.isSafeInteger((x as { bytes: unknown }).bytes) &&
      /^[0-9a-f]{64}$/.test(String((x as { sha256: unknown }).sha256));
    if (!c || !Number.isSafeInteger(c.from) || !ok(c.journal) || (c.snapshot !== undefined && !ok(c.snapshot))) return undefined;
    return { coverage: c, at, end: end + 1 };
  } catch {
    return undefined;
  }
}

export const sha256 = (buf: Buffer): string => createHash('sha256').update(buf).digest('hex');

/**
 * Why an old generation's file (journal-<from> or snapshot-<from>) is not provably covered by the
 * loaded generation (undefined: it is, byte for byte). `coverage`: what the new journal recorded.
 */
export function coverageFault(
  buf: Buffer,
  kind: 'journal' | 'snapshot',
  from: number,
  coverage: Coverage | undefined,
  by: string,
): string | undefined {
  if (!coverage || coverage.from !== from)
    return `${by} holds no record of what it was compacted from (an older version wrote it, or it was changed), so this file cannot be proven covered`;
  const want = coverage[kind];
  if (!want) return `${by} was not compacted from a ${kind}`;
  if (buf.length === want.bytes && sha256(buf) === want.sha256) return undefined;
  return `not the ${kind} compacted into ${by} (that one was ${want.bytes} bytes, this is ${buf.length}${buf.length === want.bytes ? ' with other content' : ''}): it may hold writes the loaded generation lacks`;
}

/** The fields a line may have: its ops; a snapshot's header and trailer; a new journal's coverage record. */
export const LINE_KEYS = new Set(['ops', 'snapshot', 'end', 'compacted']);
const KINDS = new Set<string>([
  'customer',
  'kyc_verification',
  'account',
  'external_account',
  'transfer',
  'card',
  'collection',
  'payment_link',
  'wallet',
  'fx_quote',
  'fx_trade',
  'transaction',
  'ledger_entry',
  'event',
] satisfies Kind[]);
const SCOPE_RE = /^(sandbox|live)\|[A-Za-z0-9_-]{1,64}$/;

export const showField = (k: string): string => (/^[\w-]{1,40}$/.test(k) ? `"${k}"` : 'an odd name');
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Why a parsed line (with its ops list) is not one the emulator understands: an unknown field, an op it does not write. */
export function lineFault(line: { ops?: unknown }): string | undefined {
  const unknown = Object.keys(line).find((k) => !LINE_KEYS.has(k));
  if (unknown !== undefined) return `has a field the emulator does not know (${showField(unknown)}): written by a newer version?`;
  const ops = line.ops as unknown[];
  for (let i = 0; i < ops.length; i++) {
    const fault = opFault(ops[i]);
    if (fault) return `holds an op the emulator does not understand (op ${i + 1}: ${fault})`;
  }
  return undefined;
}

/** Why an op is not one the emulator writes (undefined: it is); the app checks each op it loads. */
export function opFault(op: unknown): string | undefined {
  if (!isObject(op)) return `not an object but ${op === null ? 'null' : Array.isArray(op) ? 'a list' : typeof op}`;
  if ('p' in op) {
    if (typeof op.p !== 'string' || !KINDS.has(op.p))
      return `an unknown kind of record${typeof op.p === 'string' && /^[a-z_]{1,40}$/.test(op.p) ? ` "${op.p}"` : ''}`;
    if (typeof op.s !== 'string' || !SCOPE_RE.test(op.s)) return 'an unknown scope (not sandbox|<tenant> or live|<tenant>)';
    if (!isObject(op.o) || typeof op.o.id !== 'string' || op.o.id === '') return 'a record without an id';
    if (op.x !== undefined && !isObject(op.x)) return 'internal fields that are not an object';
    if (op.d !== undefined && typeof op.d !== 'string') return 'a reference that is not an id';
    if (op.d !== undefined && !isObject(op.o.data)) return 'an event without data';
    return undefined;
  }
  if ('i' in op) {
    if (typeof op.i !== 'string' || typeof op.f !== 'string' || typeof op.s !== 'number' || typeof op.t !== 'number')
      return 'a stored response without its key, fingerprint, status or time';
    if ('r' in op ? typeof op.r !== 'string' : !('j' in op)) return 'a stored response without its body';
    return undefined;
  }
  if ('c' in op) return typeof op.c === 'number' && Number.isFinite(op.c) ? undefined : 'a clock offset that is not a number';
  return 'none of the kinds of op the emulator writes';
}

/**
 * The first damaged line of a file of `{"ops":[…]}` lines. In a journal (`tolerant`) a damaged
 * last line is not one: a crash during a write leaves it, and the load drops it.
 */
export function linesFault(buf: Buffer, tolerant: boolean): string | undefined {
  const text = buf.toString('utf8');
  let start = 0;
  for (let lineNo = 1; start < text.length; lineNo++) {
    const end = text.indexOf('\n', start);
    // A journal's last line may be torn (a write never acknowledged): dropped at load if it does not parse.
    const lastOfJournal = tolerant && (end < 0 || end === text.length - 1);
    if (end < 0 && !lastOfJournal) return `line ${lineNo} is cut`;
    let parsed: { ops?: unknown };
    try {
      if (end < 0) throw new Error('torn line');
      parsed = JSON.parse(text.slice(start, end)) as { ops?: unknown };
      if (!Array.isArray(parsed?.ops)) throw new Error('no ops');
    } catch (e) {
      if (lastOfJournal) return undefined;
      return `line ${lineNo} is damaged (${(e as Error).message})`;
    }
    const fault = lineFault(parsed);
    if (fault) return `line ${lineNo} ${fault}`;
    start = end + 1;
  }
  return undefined;
}

/**
 * Why a file a compaction left cannot be removed (undefined: it can): a record put in it that
 * the loaded state lacks (records are never deleted, only replaced, except by a reset), or a
 * damaged line (other than a torn last one) whose records cannot be checked.
 */
export function uncoveredFault(buf: Buffer, has: (id: string) => boolean): string | undefined {
  const text = buf.toString('utf8');
  let missing = 0;
  let example: string | undefined;
  let start = 0;
  for (let lineNo = 1; start < text.length; lineNo++) {
    const end = text.indexOf('\n', start);
    if (end < 0) break; // a torn last line: a write never acknowledged
    let ops: unknown;
    try {
      ops = (JSON.parse(text.slice(start, end)) as { ops?: unknown }).ops;
      if (!Array.isArray(ops)) throw new Error('no ops');
    } catch {
      if (end === text.length - 1) break;
      return `line ${lineNo} is damaged, so what it holds cannot be checked against what was loaded`;
    }
    for (const op of ops as Array<{ p?: unknown; o?: { id?: unknown } }>) {
      const id = op?.p !== undefined ? op.o?.id : undefined;
      if (typeof id === 'string' && !has(id)) {
        missing++;
        example ??= id;
      }
    }
    start = end + 1;
  }
  if (missing === 0) return undefined;
  const shown = example && /^[\w-]{1,64}$/.test(example) ? `, e.g. ${example}` : '';
  return `it holds ${missing} record${missing === 1 ? '' : 's'} the loaded generation lacks${shown}`;
}

// ---------------------------------------------------------------------------------------------
// The judgement

/**
 * What the data dir's files are. `deep`: also read the current generation whole (the snapshot's
 * SHA-256, every journal line), so that damage is found before anything is loaded.
 */
export function inspectDataDir(dir: string, deep = false): DataDirPlan {
  const plan: DataDirPlan = { gen: 0, journal: false, superseded: [], settingsLeftovers: [], problems: [] };
  const journals = new Map<number, string>();
  const snapshots = new Map<number, string>();
  const temps: Array<{ gen: number; name: string }> = [];
  const uid = process.getuid?.();
  for (const name of readdirSync(dir)) {
    let st: Stats;
    try {
      st = lstatSync(join(dir, name));
    } catch {
      continue; // gone meanwhile
    }
    if (OTHERS.has(name) || SYSTEM.has(name) || (SET_ASIDE_RE.test(name) && st.isDirectory())) continue;
    if ((SETTINGS_TMP_RE.test(name) || LOCK_CLAIM_RE.test(name)) && st.isFile()) {
      plan.settingsLeftovers.push(name);
      continue;
    }
    const j = JOURNAL_RE.exec(name);
    const s = SNAPSHOT_RE.exec(name);
    const t = SNAPSHOT_TMP_RE.exec(name);
    const m = j ?? s ?? t;
    if (!m) {
      plan.problems.push({ name, why: st.isFile() ? 'not a file the emulator writes' : `${kindOf(st)} the emulator does not write` });
      continue;
    }
    if (!st.isFile()) {
      plan.problems.push({ name, why: `${kindOf(st)}, not a regular file` });
      continue;
    }
    // Planted by another user in a shared folder: never written to, never loaded.
    if (uid !== undefined && st.uid !== uid) {
      plan.problems.push({ name, why: `it belongs to another user (uid ${st.uid})` });
      continue;
    }
    const gen = Number(m[1]);
    if (j) journals.set(gen, name);
    else if (s) snapshots.set(gen, name);
    else temps.push({ gen, name });
  }

  if (snapshots.has(0)) {
    plan.problems.push({ name: snapshotName(0), why: 'a generation the emulator never writes (its first snapshot is snapshot-1)' });
    snapshots.delete(0);
  }
  const g = snapshots.size ? Math.max(...snapshots.keys()) : 0;
  plan.gen = g;
  plan.journal = journals.has(g);
  if (g > 0) {
    const fault = currentSnapshotFault(join(dir, snapshotName(g)), g, deep);
    if (fault) plan.problems.push({ name: snapshotName(g), why: fault });
    if (!journals.has(g))
      plan.problems.push({ name: snapshotName(g), why: `${journalName(g)} is missing beside it (what was written after it)` });
  }
  if (deep && journals.has(g)) {
    const buf = readRegular(join(dir, journalName(g)));
    const fault = buf === undefined ? 'not a regular file' : linesFault(buf, true);
    if (fault) plan.problems.push({ name: journalName(g), why: fault });
  }
  for (const [k, name] of snapshots) {
    if (k === g) continue;
    if (k === g - 1) plan.superseded.push({ name, why: `covered by ${snapshotName(g)}` });
    else plan.problems.push({ name, why: `generation ${k}, older than the one ${snapshotName(g)} replaced (${g - 1})` });
  }
  const newTemp = temps.some((t) => t.gen === g + 1);
  for (const [k, name] of journals) {
    if (k === g) continue;
    if (k === g - 1) plan.superseded.push({ name, why: `covered by ${snapshotName(g)}` });
    else if (k === g + 1 && newTemp)
      plan.superseded.push({ name, why: `an unfinished compaction's new journal (what it holds is in ${journalName(g)} too)` });
    else if (k > g)
      plan.problems.push({
        name,
        why: `a journal without its snapshot (${snapshotName(k)} is not there${g ? `; the newest is ${snapshotName(g)}` : ''})`,
      });
    else plan.problems.push({ name, why: `generation ${k}, older than the one ${snapshotName(g)} replaced (${g - 1})` });
  }
  for (const t of temps) {
    if (t.gen <= g + 1) plan.superseded.push({ name: t.name, why: 'an unfinished snapshot' });
    else
      plan.problems.push({
        name: t.name,
        why: `an unfinished snapshot of generation ${t.gen}, though ${g ? `the newest snapshot is ${snapshotName(g)}` : 'there is no snapshot'}`,
      });
  }
  return plan;
}

function currentSnapshotFault(path: string, gen: number, deep: boolean): string | undefined {
  try {
    if (deep) {
      const buf = readRegular(path);
      if (buf === undefined) return 'not a regular file';
      // An older snapshot (no header): its lines are all it has to show.
      return snapshotFault(buf, gen, true) ?? linesFault(buf, false);
    }
    // Only its two ends (it is read whole, and its SHA-256 checked, when loaded).
    const ends = readEnds(path, 256, 1024);
    return ends === undefined ? 'not a regular file' : endsFault(ends, gen);
  } catch (err) {
    return `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
}

/** A regular file's first `head` and last `tail` bytes (undefined: not a regular file). */
function readEnds(path: string, head: number, tail: number): Ends | undefined {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    const read = (at: number, length: number): Buffer => {
      const buf = Buffer.alloc(Math.max(0, length));
      let done = 0;
      while (done < buf.length) {
        const n = readSync(fd, buf, done, buf.length - done, at + done);
        if (n === 0) break;
        done += n;
      }
      return buf.subarray(0, done);
    };
    const tailAt = Math.max(0, st.size - tail);
    return { head: read(0, Math.min(head, st.size)), tail: read(tailAt, st.size - tailAt), tailAt, size: st.size };
  } finally {
    closeSync(fd);
  }
}

/** The set-aside folder's name for a time: set-aside-20261128T195959Z. */
const setAsideFolder = (now: Date): string =>
  `set-aside-${now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}`;

/** Moves `names` into a new set-aside folder in `dir` (never deleting anything); returns the folder's name. */
export function setAside(dir: string, names: string[], folder?: string, now = new Date()): string {
  if (folder === undefined) {
    const base = setAsideFolder(now);
    for (let n = 1; ; n++) {
      const name = n === 1 ? base : `${base}-${n}`;
      try {
        mkdirSync(join(dir, name), { mode: 0o700 });
        folder = name;
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 9999) throw err;
      }
    }
  }
  for (const name of names) renameSync(join(dir, name), join(dir, folder, name));
  syncDir(join(dir, folder));
  syncDir(dir);
  return folder;
}

export interface PrepareOptions {
  setAsideUnknown?: boolean;
  log?: (line: string) => void;
}

/**
 * Before the emulator opens a data dir: creates it if need be, sets aside the settings files'
 * unfinished temporaries (with a line), and refuses (DataDirRefused) what it cannot account for,
 * or with setAsideUnknown moves that into a set-aside folder, says so, and looks again.
 */
export function prepareDataDir(dir: string, opts: PrepareOptions = {}): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const log = opts.log ?? (() => {});
  let folder: string | undefined;
  for (let round = 0; ; round++) {
    const plan = inspectDataDir(dir, opts.setAsideUnknown === true);
    // A refusal changes nothing.
    if (plan.problems.length && (!opts.setAsideUnknown || round > 10_000)) throw new DataDirRefused(dir, plan.problems);
    if (plan.settingsLeftovers.length) {
      folder = setAside(dir, plan.settingsLeftovers, folder);
      log(
        `set aside what an interrupted write of the settings left, into ${showName(`${join(dir, folder)}/`)}: ${plan.settingsLeftovers.map(showName).join(', ')}`,
      );
    }
    if (plan.problems.length === 0) return;
    // The newest snapshot first, alone: the others were judged against it (a stray snapshot of a
    // high generation makes every real file look old), so they are judged again without it.
    const newest = snapshotName(plan.gen);
    const first = plan.problems.some((p) => p.name === newest) ? plan.problems.filter((p) => p.name === newest) : plan.problems;
    folder = setAside(dir, [...new Set(first.map((p) => p.name))], folder);
    log(`set aside into ${showName(`${join(dir, folder)}/`)}: ${first.map((p) => `${showName(p.name)} (${p.why})`).join(', ')}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Writing a file whole, as src/shared/atomic-write.ts does (kept here because a snapshot is
// written a slice at a time, over many turns of the event loop): a random temporary name in the
// target's folder, opened O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW with mode 0600; the caller writes and
// fsyncs it; publish() renames it into place and fsyncs the folder.

/** The file operations these need (journal.ts's FileLayer; tests inject failures). */
export interface TempFiles {
  openSync(path: string, flags: number, mode?: number): number;
  renameSync(from: string, to: string): void;
}

export const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** Creates `<name>.<16 hex>.tmp` in `dir`; returns its path and descriptor. */
export function openTemp(files: TempFiles, dir: string, name: string): { path: string; fd: number } {
  const path = join(dir, `${name}.${randomBytes(8).toString('hex')}.tmp`);
  return { path, fd: files.openSync(path, CREATE_NEW, 0o600) };
}

/** Renames a written and fsynced temporary into place, then makes the rename durable. */
export function publish(files: TempFiles, tmp: string, target: string, dir: string): void {
  files.renameSync(tmp, target);
  syncDir(dir);
}

export function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some platforms cannot fsync a directory; the data itself is synced.
  }
}
