// pay seed apply|plan <file>: declarative test data that a re-run, a retry or a kill never duplicates.
import type { Command } from 'commander';
import { Printer, resolveOutput, type Column } from '../../io/output.js';
import { progressBar } from '../../io/progress.js';
import { PayError, UsageError } from '../../lib/errors.js';
import { createFactory, type Factory } from '../../lib/factory.js';
import { checkInt } from '../../lib/validate.js';
import { apply as applySeed, plan as planSeed, readState, type Outcome } from '../../seed/apply.js';
import { loadSeedFile } from '../../seed/file.js';

const COLUMNS: Column[] = [
  { header: 'ENTRY', path: 'ref' },
  { header: 'ID', path: 'id' },
  { header: 'STATUS', path: 'status', kind: 'status' },
  { header: 'ERROR', path: 'error' },
];

function setup(command: Command, file: string) {
  const opts = command.opts();
  const f = createFactory({ flags: command.optsWithGlobals() });
  const s = f.settings();
  const statePath = typeof opts.state === 'string' ? opts.state : `${file}.state.json`;
  const tenant = s.tenant.value ?? 'default';
  return { f, opts, s, statePath, tenant };
}

export async function apply(command: Command, file: string): Promise<void> {
  const { f, opts, s, statePath, tenant } = setup(command, file);
  const concurrency = Number(opts.concurrency ?? 8);
  const problem = checkInt(1, 64)(String(opts.concurrency ?? 8));
  if (problem) throw new UsageError(`--concurrency ${problem}`);
  const entries = await loadSeedFile(file);
  if (opts.dryRun) return print(f, command, planSeed(entries, readState(statePath, { tenant, mode: s.mode.value, baseUrl: s.baseUrl.value })), 'plan');
  const client = await f.client();
  const outcomes = await applySeed(entries, {
    client,
    tenant,
    mode: s.mode.value,
    baseUrl: s.baseUrl.value,
    env: f.env,
    concurrency,
    statePath,
    progress: progressBar(f.io, 'seed'),
  });
  await print(f, command, outcomes, 'apply');
}

export async function plan(command: Command, file: string): Promise<void> {
  const { f, s, statePath, tenant } = setup(command, file);
  const entries = await loadSeedFile(file);
  await print(f, command, planSeed(entries, readState(statePath, { tenant, mode: s.mode.value, baseUrl: s.baseUrl.value })), 'plan');
}

async function print(f: Factory, command: Command, outcomes: Outcome[], what: 'apply' | 'plan'): Promise<void> {
  const out = resolveOutput(command.opts(), f.io);
  if (out.format === 'json' && !out.fields) {
    // JSON maps names to ids (what a CI job wants to read back); -o ndjson gives the full rows.
    const map = Object.fromEntries(outcomes.map((o) => [o.ref, o.id ?? null]));
    f.io.out(`${JSON.stringify(map, null, 2)}\n`);
  } else {
    const rows = what === 'plan' ? outcomes.map((o) => ({ ...o, status: o.status === 'created' ? 'create' : 'skip' })) : outcomes;
    await new Printer(f.io, out, COLUMNS).printList(
      (async function* () {
        yield rows;
      })(),
      'entries',
    );
  }
  const count = (s: Outcome['status']) => outcomes.filter((o) => o.status === s).length;
  if (what === 'plan') {
    f.io.err(`plan: ${count('created')} to create, ${count('skipped')} already done\n`);
    return;
  }
  f.io.err(`seed: ${count('created')} created, ${count('replayed')} replayed, ${count('skipped')} skipped, ${count('failed')} failed, ${count('blocked')} blocked\n`);
  const failures = outcomes.filter((o) => o.status === 'failed');
  if (failures.length > 0) {
    for (const o of failures.slice(0, 10)) f.io.err(`  ${o.ref}: ${o.error}\n`);
    throw new PayError(`${failures.length} seed ${failures.length === 1 ? 'entry' : 'entries'} failed; run the same command again to finish (nothing is duplicated)`, (failures[0]!.exitCode ?? 1) as 1, 'seed_failed');
  }
}
