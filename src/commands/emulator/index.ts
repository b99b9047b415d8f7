// `pay emulator start`: declaration only (start-up path); the server loads lazily on run.
import type { Command } from 'commander';

export interface StartFlags {
  host: string;
  port: string;
  dataDir?: string;
  webhookUrl?: string;
  configureProfile?: string;
  failRate?: string;
  latency?: string;
  resetRate?: string;
  rateLimit?: string;
  settleAfter?: string;
  allowOrigin?: string[];
}

export function registerEmulator(program: Command): void {
  const emulator = program
    .command('emulator')
    .summary('Run a local stand-in for the service')
    .description('A local, stateful, persistent stand-in for the payments service, serving the whole API contract (pay openapi).');
  emulator.addHelpText(
    'after',
    '\nExamples:\n  $ pay emulator start\n  $ pay emulator start --port 0 --data-dir .pay-emulator --configure-profile local\n',
  );
  const start = emulator
    .command('start')
    .summary('Start the emulator (runs until Ctrl-C)')
    .description(
      'Start the emulator and print its base URL, tenant id, keys and webhook secrets (its own test keys) on stderr. ' +
        'It runs until Ctrl-C (SIGINT) or SIGTERM.\n\n' +
        'State is in memory unless --data-dir is given; with a data dir it survives restarts (even kill -9) and keeps the same keys.\n\n' +
        'Accounts get money from collections: `pay collections create --account acc_… --amount 1000.00 --currency USD --method card` ' +
        'credits the account once it settles (--settle-after).\n\n' +
        'Admin routes (no key, loopback clients only) live under /__emulator/: reset, clock/advance, faults, webhook-url, requests, stats, ledger.\n\n' +
        'Web pages cannot reach it: a request whose Host is not localhost, 127.x.x.x, [::1] or the --host address is refused (403), ' +
        'so is one with an Origin header (unless --allow-origin names it) and every CORS preflight; no answer carries Access-Control-* headers.',
    )
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port to listen on; 0 picks a free one', '8787')
    .option('--data-dir <dir>', 'keep state (and keys) in this folder across restarts')
    .option('--webhook-url <url>', 'POST signed webhook events to this URL')
    .option('--configure-profile <name>', 'write a profile pointing at this emulator (keys, tenant, base URL, webhook secrets)')
    .option('--fail-rate <p>', 'answer this share of requests (0-1) with 500/503, half of them after the write committed')
    .option('--latency <min-max>', 'add a random delay in ms to every request, e.g. 50-200')
    .option('--reset-rate <p>', 'drop the connection without answering for this share of requests (0-1)')
    .option('--rate-limit <n/s>', 'allow this many requests per second per key (429 with Retry-After beyond), e.g. 20/s')
    .option('--settle-after <ms>', 'pending transfers, collections, KYC reviews and physical cards settle after this long', '1000')
    .option(
      '--allow-origin <origin>',
      'serve requests carrying this Origin header (e.g. http://localhost:3000; repeatable); others are refused',
      (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
    );
  start.addHelpText(
    'after',
    '\nExamples:\n' +
      '  $ pay emulator start\n' +
      '  $ pay emulator start --port 0 --data-dir .pay-emulator --configure-profile local\n' +
      '  $ pay emulator start --webhook-url http://127.0.0.1:9000/hooks --settle-after 200\n' +
      '  $ pay emulator start --fail-rate 0.1 --latency 20-200 --rate-limit 50/s   # rehearse retries\n' +
      "\nOutput: nothing on stdout. On stderr, the base URL, the tenant id and the emulator's own test keys and\n" +
      'webhook secrets (whole: they work only here), then errors, if any. Ctrl-C or SIGTERM stops it with exit 0.\n',
  );
  start.action(async (flags: StartFlags) => {
    const { run } = await import('./start.js');
    await run(flags);
  });
}
