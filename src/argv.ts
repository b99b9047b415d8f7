// The contract lists --json, -o/--output, --fields, --jq, --no-header, --dry-run, -y/--yes and
// --idempotency-key among the global flags (and --wide joins them), but they belong to the verbs that print, confirm or POST (commander declares them
// there, so `--help` shows them where they mean something). Written before the command path
// (`pay --json customers list`), they are moved after it, where the verb parses them; a verb
// without the flag then says "unknown option", as it would had it been written there.

import { editDistance } from './lib/distance.js';

/** Program options that take a value: skipped with it while looking for the command path. */
const PROGRAM_VALUE_FLAGS = new Set([
  '-p',
  '--profile',
  '--api-key',
  '--tenant',
  '--base-url',
  '--timeout',
  '--max-retries',
  '--max-response-bytes',
]);
/** Verb options that take a value. */
const VERB_VALUE_FLAGS = new Set(['-o', '--output', '--fields', '--jq', '--idempotency-key']);
const VERB_BOOLEAN_FLAGS = new Set(['--json', '--no-header', '--wide', '--dry-run', '-y', '--yes']);

export function hoistVerbFlags(argv: readonly string[]): string[] {
  const moved: string[] = [];
  const rest: string[] = [];
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--' || !a.startsWith('-') || a === '-') break;
    const name = a.startsWith('--') ? a.split('=')[0]! : a.slice(0, 2);
    const inline = a.startsWith('--') ? a.includes('=') : a.length > 2;
    if (VERB_BOOLEAN_FLAGS.has(a)) moved.push(a);
    else if (VERB_VALUE_FLAGS.has(name)) {
      moved.push(a);
      if (!inline && i + 1 < argv.length) moved.push(argv[++i]!);
    } else {
      rest.push(a);
      if (PROGRAM_VALUE_FLAGS.has(name) && !inline && i + 1 < argv.length) rest.push(argv[++i]!);
    }
  }
  if (moved.length === 0) return [...argv];
  const tail = argv.slice(i);
  const dashdash = tail.indexOf('--');
  return dashdash < 0 ? [...rest, ...tail, ...moved] : [...rest, ...tail.slice(0, dashdash), ...moved, ...tail.slice(dashdash)];
}

/**
 * Whether `suggested` is close to what was typed: a prefix of three letters or more (`doc` →
 * `doctor`), one letter off from three letters on (`seeds` → `seed`), two from four on (`frze` →
 * `freeze`). commander also offers `fx` for `tx`: a two-letter guess is no help with money.
 */
export function closeName(typed: string, suggested: string): boolean {
  const a = typed.replace(/^-+/, '').toLowerCase();
  const b = suggested.replace(/^-+/, '').toLowerCase();
  if (a.length < 3) return false;
  if (b.startsWith(a)) return true;
  const d = editDistance(a, b);
  return d <= 1 || (a.length >= 4 && d <= 2);
}

/** commander's "unknown command 'x'\n(Did you mean y?)": the message, and a hint offering y only when it is close. */
export function commanderSuggestion(message: string): [string, string] {
  const m = /^(.*?unknown (?:command|option) '([^']*)'.*?)\s*\(Did you mean ([^?\s]+)\?\)\s*$/s.exec(message);
  if (!m) return [message, 'add --help for usage'];
  const [, head, typed, guess] = m;
  return [head!, closeName(typed!, guess!) ? `did you mean ${guess}? (add --help for usage)` : 'add --help for usage'];
}
