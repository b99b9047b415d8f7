// Times for people (issue 28, item 4): the one formatter every time in a table, a get view and a
// picker goes through. `local` (the default): the zone of `TZ` (or the machine's), shown once by
// the view (a table's header, a get view's last line); `utc` (and a local zone that is UTC):
// `2026-11-23 03:46:20Z`, the `Z` saying it in each cell; `relative` (`3h ago`, `in 2d`).
// `--time` (a global flag) and then `PAY_TIME` choose. JSON, NDJSON, CSV and TSV never come here:
// they keep the service's RFC 3339 UTC.
// Intl is used only where the system cannot say: its first DateTimeFormat costs more than the rest
// of an API command (locale data; measured, npm run bench), so the zone's name comes from `TZ` or
// the /etc/localtime link when the zone database holds it, and this process's own zone is read
// with Date's local getters.
import { lstatSync, readlinkSync } from 'node:fs';
import { UsageError } from '../lib/errors.js';

export const TIME_MODES = ['local', 'utc', 'relative'] as const;
export type TimeMode = (typeof TIME_MODES)[number];

export interface TimeView {
  mode: TimeMode;
  /** An IANA zone name (`Europe/Paris`, `UTC`): where `local` times are. */
  zone: string;
  /** The time `relative` counts from, in ms (tests fix it); default Date.now(). */
  now?: number;
}

/** `--time`, then `PAY_TIME`, then `local`; the zone from `TZ` (Intl's, as node reads it). An unknown mode is exit 2. */
export function resolveTimeView(flag: unknown, env: NodeJS.ProcessEnv): TimeView {
  const given = typeof flag === 'string' ? flag : env.PAY_TIME !== undefined && env.PAY_TIME !== '' ? env.PAY_TIME : 'local';
  const mode = given.trim().toLowerCase();
  if (!(TIME_MODES as readonly string[]).includes(mode)) {
    const from = typeof flag === 'string' ? '--time' : 'PAY_TIME';
    throw new UsageError(`invalid ${from} "${given}" (choose from ${TIME_MODES.join(', ')})`);
  }
  return { mode: mode as TimeMode, zone: localZone(env) };
}

/** The zone local times are shown in: `TZ` when it names a zone, else the machine's. */
export function localZone(env: NodeJS.ProcessEnv): string {
  const tz = env.TZ?.replace(/^:/, '');
  if (tz) {
    if (inZoneDatabase(tz)) return tz;
    try {
      return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
    } catch {
      // Not a zone Intl knows (node then shows UTC too).
    }
  }
  return (!tz && machineZone()) || new Intl.DateTimeFormat('en-US').resolvedOptions().timeZone || 'UTC';
}

const ZONEINFO = '/usr/share/zoneinfo/';
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+){0,2}$/;

/** `Europe/Paris`: a name of the system's zone database (a regular file there), not a path. */
function inZoneDatabase(name: string): boolean {
  if (!ZONE_NAME.test(name) || name.includes('..')) return false;
  try {
    return lstatSync(`${ZONEINFO}${name}`).isFile();
  } catch {
    return false;
  }
}

/** The machine's zone where /etc/localtime links into the zone database (Linux, macOS); else undefined. */
function machineZone(): string | undefined {
  try {
    const target = readlinkSync('/etc/localtime');
    const at = target.lastIndexOf('zoneinfo/');
    const name = at < 0 ? undefined : target.slice(at + 'zoneinfo/'.length);
    return name && inZoneDatabase(name) ? name : undefined;
  } catch {
    return undefined;
  }
}

/** This process's own zone (what Date's local getters use), read once. */
let ownZone: string | undefined;
const processZone = (): string => (ownZone ??= localZone(process.env));

/** Zones that are UTC by another name: their times are shown with `Z`. */
const UTC_ZONES = new Set([
  'utc',
  'etc/utc',
  'gmt',
  'etc/gmt',
  'etc/gmt0',
  'etc/gmt+0',
  'etc/gmt-0',
  'etc/universal',
  'universal',
  'etc/zulu',
  'zulu',
  'uct',
  'etc/uct',
]);

/** Times shown as UTC, each with its `Z`. */
function isUtc(view: TimeView): boolean {
  return view.mode === 'utc' || (view.mode === 'local' && UTC_ZONES.has(view.zone.toLowerCase()));
}

/** What a view says once about its times: a local zone (`Europe/Paris`); nothing for UTC (each time has its `Z`) or relative times. */
export function zoneLabel(view: TimeView | undefined): string | undefined {
  if (!view || view.mode === 'relative' || isUtc(view)) return undefined;
  return view.zone;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;
const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * One time for people. Without a view: UTC as `2026-11-23 03:46:20Z` (the zone in the text). With
 * one: `local`/`utc` as `2026-11-23 04:46:20` (the view names the zone once), `relative` as
 * `3h ago`. Anything that is not an RFC 3339 time is returned as it is.
 */
export function formatTime(iso: string, view?: TimeView): string {
  if (!RFC3339.test(iso)) return iso;
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return iso;
  if (!view || isUtc(view)) {
    const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$/i.exec(iso);
    return m ? `${m[1]} ${m[2]}Z` : `${wallClock(ms, 'UTC')}Z`;
  }
  if (view.mode === 'relative') return relative(ms, view.now ?? Date.now());
  return wallClock(ms, view.zone);
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** `YYYY-MM-DD HH:MM:SS` in a zone: Date's local getters for this process's own zone, else Intl. */
function wallClock(ms: number, zone: string): string {
  if (zone === processZone()) {
    const d = new Date(ms);
    const date = `${String(d.getFullYear()).padStart(4, '0')}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`;
    return `${date} ${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
  }
  let fmt = formatters.get(zone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(zone, fmt);
  }
  const p: Record<string, string> = {};
  for (const part of fmt.formatToParts(ms)) p[part.type] = part.value;
  const year = p.year!.padStart(4, '0');
  return `${year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

const UNITS: ReadonlyArray<readonly [string, number]> = [
  ['y', 365 * 86_400_000],
  ['mo', 30 * 86_400_000],
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
];

/** `just now`, `45s ago`, `3h ago`, `in 2d`: the largest whole unit (a month is 30 days, a year 365). */
export function relative(ms: number, now: number): string {
  const diff = now - ms;
  const abs = Math.abs(diff);
  if (abs < 1000) return 'just now';
  for (const [unit, size] of UNITS) {
    if (abs >= size) {
      const n = Math.floor(abs / size);
      return diff >= 0 ? `${n}${unit} ago` : `in ${n}${unit}`;
    }
  }
  return 'just now';
}
