// `pay emulator start`: declaration only (start-up path); the server loads lazily on run (start.ts).
import type { CommandDecl } from '../../cmdutil/decl.js';

export const emulator: CommandDecl = {
  name: 'emulator',
  summary: 'Run a local stand-in for the service',
  description: 'A local, stateful, persistent stand-in for the payments service, serving the whole API contract (pay openapi).',
  examples: ['pay emulator start', 'pay emulator start --port 0 --data-dir .pay-emulator --configure-profile local'],
  subcommands: [
    {
      name: 'start',
      summary: 'Start the emulator (runs until Ctrl-C)',
      description:
        'Start the emulator and print its base URL, tenant id, keys and webhook secrets (its own test keys) on stderr. ' +
        'It runs until Ctrl-C (SIGINT) or SIGTERM.\n\n' +
        'State is in memory unless --data-dir is given; with a data dir it survives restarts (even kill -9) and keeps the same keys.\n\n' +
        'Accounts get money from collections: `pay collections create --account acc_… --amount 1000.00 --currency USD --method card` ' +
        'credits the account once it settles (--settle-after).\n\n' +
        'Admin routes (no key, loopback clients only) live under /__emulator/: reset, clock/advance, faults, webhook-url, requests, stats, ledger.\n\n' +
        'Web pages cannot reach it: a request whose Host is not localhost, 127.x.x.x, [::1] or the --host address is refused (403), ' +
        'so is one with an Origin header (unless --allow-origin names it) and every CORS preflight; no answer carries Access-Control-* headers.',
      options: [
        { flags: '--host <host>', description: 'address to listen on', default: '127.0.0.1' },
        { flags: '--port <n>', description: 'port to listen on; 0 picks a free one', default: '8787' },
        { flags: '--data-dir <dir>', description: 'keep state (and keys) in this folder across restarts' },
        { flags: '--webhook-url <url>', description: 'POST signed webhook events to this URL' },
        {
          flags: '--configure-profile <name>',
          description: 'write a profile pointing at this emulator (keys, tenant, base URL, webhook secrets)',
        },
        {
          flags: '--fail-rate <p>',
          description: 'answer this share of requests (0-1) with 500/503, half of them after the write committed',
        },
        { flags: '--latency <min-max>', description: 'add a random delay in ms to every request, e.g. 50-200' },
        { flags: '--reset-rate <p>', description: 'drop the connection without answering for this share of requests (0-1)' },
        {
          flags: '--rate-limit <n/s>',
          description: 'allow this many requests per second per key (429 with Retry-After beyond), e.g. 20/s',
        },
        {
          flags: '--settle-after <ms>',
          description: 'pending transfers, collections, KYC reviews and physical cards settle after this long',
          default: '1000',
        },
        {
          flags: '--allow-origin <origin>',
          description: 'serve requests carrying this Origin header (e.g. http://localhost:3000; repeatable); others are refused',
          repeatable: true,
        },
      ],
      examples: [
        'pay emulator start',
        'pay emulator start --port 0 --data-dir .pay-emulator --configure-profile local',
        'pay emulator start --webhook-url http://127.0.0.1:9000/hooks --settle-after 200',
        'pay emulator start --fail-rate 0.1 --latency 20-200 --rate-limit 50/s   # rehearse retries',
      ],
      prints: {
        note:
          "nothing on stdout. On stderr, the base URL, the tenant id and the emulator's own test keys and\n" +
          'webhook secrets (whole: they work only here), then errors, if any. Ctrl-C or SIGTERM stops it with exit 0.',
      },
      run: () => import('./start.js').then((m) => m.run),
    },
  ],
};
