// pay seed apply|plan <file>: declarative test data that a re-run, a retry or a kill never duplicates,
// and that an edited file changes (update in place, or with --replace a new object for the old).
import type { Command } from 'commander';
import { escapeText } from '../../io/escape.js';
import { Printer, resolveOutput, type Column, type OutputSettings } from '../../io/output.js';
import { progressBar } from '../../io/progress.js';
import { PayError, UsageError } from '../../lib/errors.js';
import { createFactory, type Factory } from '../../lib/factory.js';
import { checkInt } from '../../lib/validate.js';
import { apply as applySeed, readState, type Outcome, type Retirement, type StateFile } from '../../seed/apply.js';
import { planChanges as planSeed } from '../../seed/diff.js';
import { describe, type Change } from '../../seed/diff.js';
import { kindOfRef, loadSeedFile, type Entry } from '../../seed/file.js';
import { fateOfOld } from '../../seed/lifecycle.js';

const APPLY_COLUMNS: Column[] = [
  { header: 'ENTRY', path: 'ref' },
  { header: 'ACTION', path: 'action' },
  { header: 'ID', path: 'id' },
  { header: 'STATUS', path: 'status', kind: 'status' },
  { header: 'OLD ID', path: 'old_id' },
  { header: 'OLD STATUS', path: 'old_status', kind: 'status' },
  { header: 'ERROR', path: 'error' },
];
const PLAN_COLUMNS: Column[] = [
  { header: 'ENTRY', path: 'ref' },
  { header: 'ACTION', path: 'action' },
  { header: 'ID', path: 'id' },
  { header: 'DETAIL', path: 'detail' },
];

function setup(command: Command, file: string) {
  const opts = command.opts();
  const f = createFactory({ flags: command.optsWithGlobals() });
  const s = f.settings();
  const statePath = typeof opts.state === 'string' ? opts.state : `${file}.state.json`;
  const tenant = s.tenant.value ?? 'default';
  const readSeedState = () => readState(statePath, { tenant, mode: s.mode.value, baseUrl: s.baseUrl.value });
  return { f, opts, s, statePath, tenant, readSeedState };
}

export async function apply(command: Command, file: string): Promise<void> {
  const { f, opts, s, statePath, tenant, readSeedState } = setup(command, file);
  const concurrency = Number(opts.concurrency ?? 8);
  const problem = checkInt(1, 64)(String(opts.concurrency ?? 8));
  if (problem) throw new UsageError(`--concurrency ${problem}`);
  const out = resolveOutput(command.opts(), f.io);
  const entries = await loadSeedFile(file);
  const state = await readSeedState();
  const changes = planSeed(entries, state, f.env);
  if (opts.dryRun) return printPlan(f, out, entries, changes, state, opts.replace === true);
  if (!opts.replace) refuseReplacements(f, out, changes);
  const client = await f.client();
  const { outcomes, retirements } = await applySeed(entries, state, {
    client,
    tenant,
    mode: s.mode.value,
    baseUrl: s.baseUrl.value,
    env: f.env,
    concurrency,
    statePath,
    replace: opts.replace === true,
    progress: progressBar(f.io, 'seed'),
  });
  await printApply(f, out, outcomes, retirements);
}

export async function plan(command: Command, file: string): Promise<void> {
  const { f, readSeedState } = setup(command, file);
  const entries = await loadSeedFile(file);
  const state = await readSeedState();
  await printPlan(f, resolveOutput(command.opts(), f.io), entries, planSeed(entries, state, f.env), state);
}

/** Without --replace, an entry that cannot be updated in place stops the run before anything is sent. */
function refuseReplacements(f: Factory, out: OutputSettings, changes: Change[]): void {
  const replaces = changes.filter((c) => c.action === 'replace');
  if (replaces.length === 0) return;
  const n = replaces.length === 1 ? '1 entry' : `${replaces.length} entries`;
  const message = `${n} changed in a way the API cannot update in place: ${replaces.map((c) => c.ref).join(', ')}; nothing was sent`;
  const hint = `run again with --replace to create ${replaces.length === 1 ? 'it' : 'them'} anew; the old objects would be: ${replaces
    .map((c) => `${c.id} ${fateOfOld(kindOfRef(c.ref))}`)
    .join('; ')}`;
  const json = out.format === 'json' || out.format === 'ndjson';
  if (!json) {
    f.io.err(`error: ${escapeText(message)}\n`);
    for (const c of replaces) f.io.err(`  ${escapeText(`${c.ref}: ${describe(c, kindOfRef(c.ref))}`)}\n`);
    f.io.err(`hint: ${escapeText(hint)}\n`);
  }
  throw new UsageError(message, {
    hint,
    quiet: !json,
    details: { replace: replaces.map((c) => ({ ref: c.ref, id: c.id, fields: c.fields, follows: c.follows, reason: c.reason, old: fateOfOld(kindOfRef(c.ref)) })) },
  });
}

async function printRows(f: Factory, out: OutputSettings, columns: Column[], rows: object[]): Promise<void> {
  await new Printer(f.io, out, columns).printList(
    (async function* () {
      yield rows;
    })(),
    'entries',
  );
}

/** JSON maps names to ids (what a CI job wants to read back); the rows (-o ndjson, --fields) carry the action. */
function printIdMap(f: Factory, rows: Array<{ ref: string; id?: string | undefined }>): void {
  f.io.out(`${JSON.stringify(Object.fromEntries(rows.map((o) => [o.ref, o.id ?? null])), null, 2)}\n`);
}

async function printPlan(f: Factory, out: OutputSettings, entries: Entry[], changes: Change[], state: StateFile, replace = false): Promise<void> {
  const rows = changes.map((c) => ({ ref: c.ref, action: c.action, status: c.action, ...(c.id ? { id: c.id } : {}), detail: describe(c, kindOfRef(c.ref)) }));
  if (out.format === 'json' && !out.fields) printIdMap(f, rows);
  else await printRows(f, out, PLAN_COLUMNS, rows);
  const count = (a: Change['action']) => changes.filter((c) => c.action === a).length;
  f.io.err(`plan: ${count('create')} to create, ${count('update')} to update, ${count('replace')} to replace, ${count('skip')} already done\n`);
  if (count('replace') > 0) {
    if (out.format === 'json' && !out.fields) for (const c of changes) if (c.action === 'replace') f.io.err(`  ${escapeText(`${c.ref}: ${describe(c, kindOfRef(c.ref))}`)}\n`);
    if (!replace) f.io.err(`plan: apply replaces only with --replace\n`);
  }
  const pending = state.retire ?? [];
  if (pending.length > 0) f.io.err(`plan: ${pending.length} replaced ${pending.length === 1 ? 'object is' : 'objects are'} still to be retired by apply: ${escapeText(pending.map((r) => `${r.id} (${r.ref})`).join(', '))}\n`);
  const inFile = new Set(entries.map((e) => e.ref));
  const gone = Object.keys(state.entries).filter((ref) => !inFile.has(ref));
  if (gone.length > 0) f.io.err(`plan: ${gone.length} ${gone.length === 1 ? 'entry' : 'entries'} of the state file no longer in the file, left as they are: ${escapeText(gone.join(', '))}\n`);
}

async function printApply(f: Factory, out: OutputSettings, outcomes: Outcome[], retirements: Retirement[]): Promise<void> {
  const rows: Array<Outcome & { old_status?: string }> = outcomes.map((o) => ({ ...o }));
  for (const r of retirements) {
    const row = rows.find((o) => o.ref === r.ref);
    if (row && (row.old_id === undefined || row.old_id === r.id)) Object.assign(row, { old_id: r.id, old_status: r.status });
  }
  if (out.format === 'json' && !out.fields) printIdMap(f, rows);
  else await printRows(f, out, APPLY_COLUMNS, rows);
  const count = (s: Outcome['status']) => outcomes.filter((o) => o.status === s).length;
  f.io.err(
    `seed: ${count('created')} created, ${count('replayed')} replayed, ${count('updated')} updated, ${count('replaced')} replaced, ` +
      `${count('skipped')} skipped, ${count('failed')} failed, ${count('blocked')} blocked\n`,
  );
  for (const r of retirements) {
    const what = r.status === 'kept' ? 'left behind' : r.status === 'pending' ? 'not retired yet' : r.status;
    f.io.err(`  ${escapeText(`old ${r.id} (${r.ref}): ${what}${r.note ? `: ${r.note}` : ''}`)}\n`);
  }
  const failures = outcomes.filter((o) => o.status === 'failed');
  if (failures.length > 0) {
    for (const o of failures.slice(0, 10)) f.io.err(`  ${escapeText(`${o.ref}: ${o.error}`)}\n`);
    throw new PayError(`${failures.length} seed ${failures.length === 1 ? 'entry' : 'entries'} failed; run the same command again to finish (nothing is duplicated)`, (failures[0]!.exitCode ?? 1) as 1, 'seed_failed');
  }
}
