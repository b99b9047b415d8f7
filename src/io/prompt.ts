// The prompter: @inquirer/prompts drawn on stderr (stdout stays data only). Ctrl-C, Ctrl-D (end
// of input, at any prompt, typed text or not), a closed terminal and an aborted prompt all become
// CancelledError (exit 130, one line; the caller sends and saves nothing). Everything shown
// that may come from data (the message, a default, the choices, the typed or filled-in value, a
// validation message) goes through escapeText: a prompt never lets data drive the terminal.
import { confirm, input, password, search } from '@inquirer/prompts';
import { Chalk } from 'chalk';
import { CancelledError } from '../lib/errors.js';
import { closeNames, editDistance, isClose } from '../shared/distance.js';
import type { Check } from '../shared/validate.js';
import { escapeText } from './escape.js';
import type { IOStreams } from './iostreams.js';

export interface Prompter {
  text(message: string, opts?: { validate?: Check; optional?: boolean; default?: string }): Promise<string>;
  /** Typed as mask characters only, never echoed (the answer too); `optional`: Enter skips it (''). */
  secret(message: string, opts?: { validate?: Check; optional?: boolean }): Promise<string>;
  /** A choice of known values; free text is accepted too when `open`. */
  choose(message: string, choices: readonly string[], opts?: { open?: boolean; optional?: boolean }): Promise<string>;
  confirm(message: string, defaultValue?: boolean): Promise<boolean>;
  /**
   * A searchable list (countries, states, the objects an id argument can name): typing filters
   * it, accents and case aside; an item whose key was typed exactly comes first. Resolves to
   * the chosen item's value ('' for skip when `optional`).
   */
  pick(message: string, items: readonly PickItem[], opts?: { optional?: boolean; pageSize?: number }): Promise<string>;
}

export interface PickItem {
  value: string;
  /** What the list shows; drawn escaped. */
  label: string;
  /** Typed exactly (any case), the item comes first: `VA` for US-VA, `US` for the United States. */
  keys?: readonly string[];
  /** More text the search matches besides the label (other names). */
  text?: string;
}

/** Lower case without accents, dots or apostrophes, for matching what people type ("turkiye" finds Türkiye, "U.S.A." finds USA). */
export function searchable(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f.'\u2019]/g, '')
    .toLowerCase();
}

/**
 * The items matching `term`, best first: a key typed exactly, then a word of the label or text
 * starting with it, then the term anywhere in them; the list's own order within each rank. When
 * none matches, the items with a key one or two letters off what was typed (`virgina` finds
 * Virginia), nearest first: the "did you mean" of the validators (src/shared/fields.ts).
 */
export function rankItems<T extends PickItem>(items: readonly T[], term: string): T[] {
  const t = searchable(term.trim());
  if (!t) return [...items];
  const found = matching(items, t);
  return found.length > 0 ? found : nearItems(items, t);
}

function nearItems<T extends PickItem>(items: readonly T[], t: string): T[] {
  if (t.length < 3) return [];
  const near: Array<{ item: T; d: number }> = [];
  for (const item of items) {
    const close = (item.keys ?? []).map(searchable).filter((k) => isClose(t, k));
    if (close.length > 0) near.push({ item, d: Math.min(...close.map((k) => editDistance(t, k))) });
  }
  return near.sort((a, b) => a.d - b.d).map((n) => n.item);
}

function matching<T extends PickItem>(items: readonly T[], t: string): T[] {
  const ranked: T[][] = [[], [], []];
  for (const item of items) {
    if (item.keys?.some((k) => searchable(k) === t)) ranked[0]!.push(item);
    else {
      const hay = searchable(item.text ? `${item.label} ${item.text}` : item.label);
      let at = hay.indexOf(t);
      if (at < 0) continue;
      let wordStart = false;
      for (; at >= 0 && !wordStart; at = hay.indexOf(t, at + 1)) wordStart = at === 0 || !/[a-z0-9]/.test(hay[at - 1]!);
      ranked[wordStart ? 1 : 2]!.push(item);
    }
  }
  return ranked.flat();
}

interface Key {
  name?: string;
  ctrl?: boolean;
}

const CANCELS = new Set(['ExitPromptError', 'AbortPromptError', 'CancelPromptError']);

export function createPrompter(io: IOStreams): Prompter {
  const chalk = new Chalk({ level: io.colorEnabled ? 1 : 0 });
  const base = { input: io.stdin, output: io.stderr, clearPromptOnDone: false } as const;

  /**
   * Runs one prompt. Ctrl-D cancels it: readline closes itself on Ctrl-D at an empty line and
   * would leave the prompt pending forever (pay then ended with exit 0); elsewhere on the line
   * it would delete a character. Either way the key aborts the prompt here, and so does the end
   * of the input stream.
   */
  const ask = async <T>(start: (context: typeof base & { signal: AbortSignal }) => Promise<T>): Promise<T> => {
    const controller = new AbortController();
    const abort = () => controller.abort();
    const onKey = (_s: unknown, key: Key | undefined) => {
      if (key?.ctrl && key.name === 'd') abort();
    };
    // The prompt creates its readline (which makes stdin emit 'keypress') before this listens:
    // readline sees the key first.
    const pending = start({ ...base, signal: controller.signal });
    io.stdin.on('keypress', onKey);
    io.stdin.once('end', abort);
    io.stdin.once('close', abort);
    try {
      return await pending;
    } catch (err) {
      if (CANCELS.has((err as Error)?.name)) throw new CancelledError();
      throw err;
    } finally {
      io.stdin.off('keypress', onKey);
      io.stdin.off('end', abort);
      io.stdin.off('close', abort);
    }
  };

  /**
   * A searchable list. inquirer's search answers Enter with the item under the cursor of the list
   * on screen, which lags behind typing: keys that arrive together ("AQ" then Enter, pasted or
   * typed fast) would pick from the list of an earlier term (AD for AQ). So the answer is checked
   * against the list of the last term typed (whose search has run by then: the Enter waits a
   * turn in validate) and, when it is not in it, that list's first item is the answer.
   */
  const searchList = (message: string, list: (term: string) => Array<{ name: string; value: string }>, pageSize?: number) => {
    let latest: string[] = [];
    return ask((context) =>
      search<string>(
        {
          message: escapeText(message),
          ...(pageSize !== undefined ? { pageSize } : {}),
          source: (term) => {
            const items = list(term ?? '');
            latest = items.map((i) => i.value);
            return items;
          },
          validate: () => new Promise<true>((resolve) => setImmediate(() => resolve(true))),
        },
        context,
      ),
    ).then((value) => (latest.length === 0 || latest.includes(value) ? value : latest[0]!));
  };

  /** What the user typed (or Tab filled in from the default), shown escaped; the answer in cyan. */
  const shownValue = (value: string, { isFinal }: { isFinal: boolean }) => (isFinal ? chalk.cyan(escapeText(value)) : escapeText(value));
  const theme = { style: { defaultAnswer: (text: string) => chalk.dim(`(${escapeText(text)})`) } };

  return {
    text: (message, opts = {}) =>
      ask((context) =>
        input(
          {
            message: escapeText(opts.optional ? `${message} (optional, Enter to skip)` : message),
            ...(opts.default !== undefined ? { default: opts.default } : {}),
            transformer: shownValue,
            theme,
            validate: (raw: string) => {
              const v = raw.trim();
              if (v === '') return opts.optional ? true : 'required';
              const problem = opts.validate?.(v);
              return problem === undefined ? true : escapeText(problem);
            },
          },
          context,
        ),
      ).then((v) => v.trim()),
    secret: (message, opts = {}) =>
      ask((context) =>
        password(
          {
            message: escapeText(opts.optional ? `${message} (optional, Enter to skip)` : message),
            mask: '*',
            validate: (v: string) => {
              if (v.trim() === '') return opts.optional ? true : 'required';
              const problem = opts.validate?.(v.trim());
              return problem === undefined ? true : escapeText(problem);
            },
          },
          context,
        ),
      ).then((v) => v.trim()),
    choose: (message, choices, opts = {}) =>
      searchList(
        `${message}${opts.optional ? ' (optional, Enter to skip)' : ''}${opts.open ? ' (type to filter or enter another value)' : ''}`,
        (term) => {
          const t = term.trim();
          const list = choices.filter((c) => c.includes(t.toLowerCase())).map((c) => ({ name: escapeText(c), value: c }));
          // Nothing begins so: the near values first, as the flags' "did you mean" names them (`indivdual`).
          if (t && list.length === 0)
            for (const c of closeNames(t, choices)) list.push({ name: `did you mean ${escapeText(c)}?`, value: c });
          // Another value is asked about before it is used (the caller confirms it).
          if (opts.open && t && !choices.includes(t))
            list.push({ name: `${escapeText(t)} (not in the list: pay asks before using it)`, value: t });
          // First, so that Enter alone skips an optional field, as it does at a text prompt.
          if (opts.optional && !t) list.unshift({ name: 'skip', value: '' });
          return list;
        },
      ),
    confirm: (message, defaultValue = false) => ask((context) => confirm({ message: escapeText(message), default: defaultValue }, context)),
    pick: (message, items, opts = {}) =>
      searchList(
        `${message}${opts.optional ? ' (optional, Enter to skip)' : ''} (type to search)`,
        (term) => {
          const list = rankItems(items, term).map((item) => ({ name: escapeText(item.label), value: item.value }));
          if (opts.optional && !term.trim()) list.unshift({ name: 'skip', value: '' });
          return list;
        },
        opts.pageSize ?? 10,
      ),
  };
}
