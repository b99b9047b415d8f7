// Helpers the three script writers share: grouping case arms, quoting, the value kind of a flag.
import type { FlagModel } from './model.js';

/**
 * How a flag's value completes: `c` enum choices, `p` profile names, `s` ISO 3166-2 states of the
 * command line's country, `a` anything (nothing offered), `''` no value.
 */
export type ValueKind = 'c' | 'p' | 's' | 'a' | '';

export function valueKind(flag: FlagModel): ValueKind {
  if (!flag.takesValue) return '';
  if (flag.dynamic === 'profiles') return 'p';
  if (flag.dynamic === 'states') return 's';
  if (flag.choices?.length) return 'c';
  return 'a';
}

/** Keeps insertion order; `add(key, item)` appends item to key's list. */
export class Groups<T> {
  readonly map = new Map<string, { value: T; items: string[] }>();
  add(key: string, value: T, item: string): void {
    const g = this.map.get(key);
    if (g) {
      if (!g.items.includes(item)) g.items.push(item);
    } else this.map.set(key, { value, items: [item] });
  }
  *[Symbol.iterator](): IterableIterator<{ value: T; items: string[] }> {
    yield* this.map.values();
  }
}

/** POSIX single-quoted (bash and zsh). */
export function sq(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function pathKey(path: readonly string[]): string {
  return path.join(' ');
}

export function flagWords(flags: readonly FlagModel[]): string {
  return flags.flatMap((f) => f.names).join(' ');
}

export const GENERATED_NOTE = [
  'Generated from the pay command tree (src/completion/) by `npm run generate`; do not edit by hand.',
  'Static words (commands, flags, enum values) are embedded below, so TAB does not start Node;',
  'only profile names (-p/--profile, pay profiles use|show|remove) run `pay __complete profiles`,',
  'and a --state value `pay __complete states` (the subdivisions of the --country on the line).',
];
