// The prompter: @inquirer/prompts drawn on stderr (stdout stays data only), Ctrl-C and a
// closed terminal turned into CancelledError (exit 130, one line).
import { confirm, input, password, search } from '@inquirer/prompts';
import { CancelledError } from '../lib/errors.js';
import type { Check } from '../lib/validate.js';
import type { IOStreams } from './iostreams.js';

export interface Prompter {
  text(message: string, opts?: { validate?: Check; optional?: boolean; default?: string }): Promise<string>;
  secret(message: string, opts?: { validate?: Check }): Promise<string>;
  /** A choice of known values; free text is accepted too when `open`. */
  choose(message: string, choices: readonly string[], opts?: { open?: boolean; optional?: boolean }): Promise<string>;
  confirm(message: string, defaultValue?: boolean): Promise<boolean>;
}

export function createPrompter(io: IOStreams): Prompter {
  const context = { input: io.stdin, output: io.stderr, clearPromptOnDone: false } as const;
  const guard = async <T>(p: Promise<T>): Promise<T> => {
    try {
      return await p;
    } catch (err) {
      const name = (err as Error)?.name;
      if (name === 'ExitPromptError' || name === 'AbortPromptError' || name === 'CancelPromptError') throw new CancelledError();
      throw err;
    }
  };
  return {
    text: (message, opts = {}) =>
      guard(
        input(
          {
            message: opts.optional ? `${message} (optional, Enter to skip)` : message,
            ...(opts.default !== undefined ? { default: opts.default } : {}),
            validate: (raw: string) => {
              const v = raw.trim();
              if (v === '') return opts.optional ? true : 'required';
              const problem = opts.validate?.(v);
              return problem ?? true;
            },
          },
          context,
        ),
      ).then((v) => v.trim()),
    secret: (message, opts = {}) =>
      guard(
        password(
          {
            message,
            mask: '*',
            validate: (v: string) => (v.trim() === '' ? 'required' : (opts.validate?.(v.trim()) ?? true)),
          },
          context,
        ),
      ).then((v) => v.trim()),
    choose: (message, choices, opts = {}) =>
      guard(
        search<string>(
          {
            message: `${message}${opts.optional ? ' (optional, Enter to skip)' : ''}${opts.open ? ' (type to filter or enter another value)' : ''}`,
            source: (term) => {
              const t = (term ?? '').trim();
              const list = choices.filter((c) => c.includes(t.toLowerCase())).map((c) => ({ name: c, value: c }));
              if (opts.open && t && !choices.includes(t)) list.push({ name: `${t} (other)`, value: t });
              // First, so that Enter alone skips an optional field, as it does at a text prompt.
              if (opts.optional && !t) list.unshift({ name: 'skip', value: '' });
              return list;
            },
          },
          context,
        ),
      ),
    confirm: (message, defaultValue = false) => guard(confirm({ message, default: defaultValue }, context)),
  };
}
