// `pay profiles list|show|use|remove|set`: declarations only (start-up path); run.ts runs them.
import type { CommandDecl } from '../../cmdutil/decl.js';

/** What profiles list and show print, for --fields. */
const PROFILE_FIELDS = [
  'name',
  'current',
  'tenant_id',
  ...['sandbox', 'live'].flatMap((m) => [m, ...['secret_key', 'public_key', 'base_url', 'webhook_secret'].map((k) => `${m}.${k}`)]),
];

const load = <K extends 'list' | 'show' | 'use' | 'remove' | 'set'>(name: K) => import('./run.js').then((m) => m[name]);

export const profiles: CommandDecl = {
  name: 'profiles',
  summary: 'List, show, switch and edit stored profiles',
  description: 'List, show, switch and edit stored profiles. Keys are always shown masked.',
  examples: ['pay profiles list', 'pay profiles use acme', 'pay profiles set tenant_id biz_123'],
  subcommands: [
    {
      name: 'list',
      description: 'List stored profiles (keys masked)',
      output: { projection: true, fields: PROFILE_FIELDS },
      examples: ['pay profiles list', 'pay profiles list --json'],
      prints: {
        json: 'an array of {name, current, tenant_id, sandbox: {secret_key (masked), public_key, base_url, webhook_secret (masked)}, live: {…}}',
      },
      run: () => load('list'),
    },
    {
      name: 'show',
      args: [{ name: '[name]', description: 'profile (default: the one in use)' }],
      description: 'Show one profile (keys masked)',
      output: { projection: true, fields: PROFILE_FIELDS },
      examples: ['pay profiles show', 'pay profiles show acme --json'],
      prints: { json: 'one profile object as in profiles list' },
      run: () => load('show'),
    },
    {
      name: 'use',
      args: [{ name: '<name>', description: 'profile' }],
      description: 'Make a profile the current one',
      examples: ['pay profiles use acme', 'pay profiles use default'],
      prints: {
        note: 'nothing on stdout; "✓ Using profile" on stderr. Later commands use it unless -p or PAY_PROFILE names another. Exit 2 when there is no such profile.',
      },
      run: () => load('use'),
    },
    {
      name: 'remove',
      args: [{ name: '<name>', description: 'profile' }],
      options: [{ flags: '-y, --yes', description: 'do not ask for confirmation' }],
      description: 'Delete a profile and its keys',
      examples: ['pay profiles remove old', 'pay profiles remove old --yes'],
      prints: {
        note: 'nothing on stdout; "✓ Removed profile" on stderr. Asks first on a terminal; elsewhere --yes is needed (exit 2 without it). Exit 2 when there is no such profile.',
      },
      run: () => load('remove'),
    },
    {
      name: 'set',
      args: [
        {
          name: '<key>',
          description: 'tenant_id, or [sandbox.|live.]secret_key|public_key|base_url|webhook_secret (the mode in use when not named)',
        },
        { name: '<value>', description: 'the value; "-" reads it from standard input (use it for secrets)' },
      ],
      description: 'Set one setting of a profile (created if new)',
      examples: [
        'pay profiles set tenant_id biz_123',
        'pay profiles set live.base_url https://api.example.com/v1/',
        'printf %s "$KEY" | pay profiles set secret_key -',
      ],
      prints: {
        note: 'nothing on stdout; "✓ Set" on stderr, keys and secrets masked. An unknown setting or a bad value is exit 2 and changes nothing.',
      },
      run: () => load('set'),
    },
  ],
};
