// pay seed apply|plan <file>: declarative test data that a re-run, a retry or a kill never duplicates,
// and that an edited file changes (update in place, or with --replace a new object for the old).
// Also what users must hear before anything is sent: a state file set aside (and why), what a
// live apply would move or retire (asked on a terminal, --yes elsewhere), secrets from the environment.
import type { CommandContext } from '../../cmdutil/decl.js';
import { escapeText } from '../../io/escape.js';
import { Printer, type OutputSettings, type TableColumn } from '../../io/output.js';
import { progressBar } from '../../io/progress.js';
import { PayError, UsageError } from '../../lib/errors.js';
import type { Factory } from '../../cmdutil/factory.js';
import { checkInt } from '../../shared/validate.js';
import { apply as applySeed, type Outcome } from '../../seed/apply.js';
import type { Retirement } from '../../seed/retire.js';
import { IMPLIED_TENANT, lockState, readState, type LoadedState, type StateFile } from '../../seed/state.js';
import { verifyState } from '../../seed/verify.js';
import { checkEnvNames, describe, planChanges as planSeed, type Change } from '../../seed/diff.js';
import { isObject, kindOfRef, loadSeedFile, MONEY_KINDS, REF, type Entry } from '../../seed/file.js';
import { fateOfOld, RETIRES } from '../../seed/lifecycle.js';
import { foreseeRefusals } from '../../seed/rules.js';
import { asText } from '../../lib/text.js';
import { checkSeedFields } from './check.js';

/** An entry the plan refuses: why (the words apply would print) and the exit code (2 a field, 1 a business rule). */
type Refused = Map<string, { reason: string; exitCode: number }>;

/**
 * What apply would refuse, seen before anything is sent: every field the verbs check (the entries
 * are normalised in place, checkSeedFields), then the business rules the file and the state file
 * show (foreseeRefusals).
 */
function refusalsOf(entries: Entry[], fields: Map<string, string>, changes: Change[], state: StateFile): Refused {
  const out: Refused = new Map([...fields].map(([ref, reason]) => [ref, { reason, exitCode: 2 }]));
  const recorded = new Map(Object.entries(state.entries).map(([ref, r]) => [ref, r.object]));
  const fresh = new Set(changes.filter((c) => c.action === 'create' || c.action === 'replace').map((c) => c.ref));
  for (const [ref, reason] of foreseeRefusals(entries, recorded, fresh)) if (!out.has(ref)) out.set(ref, { reason, exitCode: 1 });
  return out;
}

/** Entries that wait, directly or not, for a refused one (apply would block them), with the refused entry they wait for. */
function blockedBy(entries: Entry[], refused: Refused): Map<string, string> {
  const byRef = new Map(entries.map((e) => [e.ref, e]));
  const out = new Map<string, string>();
  const find = (ref: string, seen: Set<string>): string | undefined => {
    for (const d of byRef.get(ref)?.deps ?? []) {
      if (refused.has(d)) return d;
      if (seen.has(d)) continue;
      seen.add(d);
      const deeper = find(d, seen);
      if (deeper) return deeper;
    }
    return undefined;
  };
  for (const e of entries) {
    if (refused.has(e.ref)) continue;
    const by = find(e.ref, new Set());
    if (by) out.set(e.ref, by);
  }
  return out;
}

const APPLY_COLUMNS: TableColumn[] = [
  { header: 'ENTRY', path: 'ref', kind: 'id', priority: 1 },
  { header: 'ACTION', path: 'action', priority: 2 },
  { header: 'ID', path: 'id', priority: 3 },
  { header: 'STATUS', path: 'status', kind: 'status', priority: 4 },
  { header: 'OLD ID', path: 'old_id', priority: 6 },
  { header: 'OLD STATUS', path: 'old_status', kind: 'status', priority: 7 },
  { header: 'ERROR', path: 'error', priority: 5 },
  { header: 'NOTE', path: 'note', priority: 8 },
];
const PLAN_COLUMNS: TableColumn[] = [
  { header: 'ENTRY', path: 'ref', kind: 'id', priority: 1 },
  { header: 'ACTION', path: 'action', priority: 2 },
  { header: 'ID', path: 'id', priority: 3 },
  { header: 'DETAIL', path: 'detail', priority: 4 },
];

function setup(f: Factory, ctx: CommandContext) {
  const { opts } = ctx;
  const file = ctx.args[0] as string;
  const s = f.settings();
  const statePath = typeof opts.state === 'string' ? opts.state : `${file}.state.json`;
  const tenant = s.tenant.value ?? IMPLIED_TENANT;
  const allowEnv: string[] = Array.isArray(opts.allowEnv) ? (opts.allowEnv as string[]) : [];
  const loadEntries = async () => {
    const entries = await loadSeedFile(file);
    checkEnvNames(entries, allowEnv);
    const fields = await checkSeedFields(entries);
    return { entries, fields };
  };
  const loadState = () => readState(statePath, { tenant, mode: s.mode.value, baseUrl: s.baseUrl.value });
  const load = async () => ({ ...(await loadEntries()), loaded: await loadState() });
  return { opts, s, statePath, tenant, load, loadEntries, loadState };
}

/** A state file set aside is never silent: a warning on stderr, and `state_set_aside` in the JSON map. */
function setAsideNote(f: Factory, loaded: LoadedState, sending: boolean): Record<string, unknown> {
  const a = loaded.setAside;
  if (!a) return {};
  f.io.err(
    `warning: ${escapeText(`the state file ${a.path} is set aside: ${a.reason}; ${sending ? 'it is moved' : 'apply would move it'} to ${a.movedTo} and every entry is looked at anew`)}\n`,
  );
  return { state_set_aside: { path: a.path, reason: a.reason, moved_to: a.movedTo } };
}

/**
 * A value of an entry as it will be sent: `${env.NAME}` read from the environment (as apply reads
 * it), a reference to an entry by its recorded object, or named as the entry still to be made.
 */
export function shownValue(v: unknown, env: NodeJS.ProcessEnv, state: StateFile): string {
  if (typeof v !== 'string') return asText(v);
  return v.replace(REF, (m, kind: string, name: string, field: string | undefined) => {
    if (kind === 'env') return env[name] ?? `(${m}: not set)`;
    const ref = `${kind}.${name}`;
    let cur: unknown = Object.hasOwn(state.entries, ref) ? state.entries[ref]?.object : undefined;
    for (const part of (field ?? 'id').split('.')) cur = isObject(cur) && Object.hasOwn(cur, part) ? cur[part] : undefined;
    return cur === undefined || isObject(cur) || Array.isArray(cur) ? `(the ${field ?? 'id'} of ${kind}.${name}, made first)` : asText(cur);
  });
}

/**
 * What a money entry does, in the values sent: a collection or a transfer moves its amount in its
 * currency; an FX trade sells its source amount or buys its target amount, the other side being the
 * quote's (never a currency it is not).
 */
export function moneyOf(kind: string, b: Record<string, unknown>, env: NodeJS.ProcessEnv, state: StateFile): string {
  const v = (k: string) => (b[k] === undefined ? undefined : shownValue(b[k], env, state));
  if (kind === 'fx_trades') {
    const from = v('source_currency') ?? '(no source currency)';
    const to = v('target_currency') ?? '(no target currency)';
    if (b.target_amount !== undefined) return `buys ${v('target_amount')} ${to} with ${from} (the amount debited is the quote's)`;
    if (b.source_amount !== undefined) return `sells ${v('source_amount')} ${from} for ${to} (the amount credited is the quote's)`;
    return `trades ${from} for ${to} (the amounts are the quote's)`;
  }
  return `moves ${[v('amount'), v('currency')].filter((x) => x !== undefined).join(' ') || 'money'}`;
}

/** Live mode: entries that move money, and objects apply would retire, need a yes on a terminal or --yes (exit 2, nothing sent). */
async function confirmLive(
  f: Factory,
  opts: Record<string, unknown>,
  entries: Entry[],
  changes: Change[],
  state: StateFile,
): Promise<void> {
  const s = f.settings();
  if (s.mode.value !== 'live' || opts.yes === true) return;
  const byRef = new Map(entries.map((e) => [e.ref, e]));
  const lines: string[] = [];
  for (const c of changes) {
    const kind = kindOfRef(c.ref);
    if ((c.action === 'create' || c.action === 'replace') && MONEY_KINDS.has(kind)) {
      const what = moneyOf(kind, byRef.get(c.ref)!.body, f.env, state);
      lines.push(`${c.ref}: ${what}${c.action === 'replace' ? ` (replaces ${c.id})` : ''}`);
    }
    if (opts.replace === true && c.action === 'replace' && RETIRES[kind]) lines.push(`${c.ref}: retires ${c.id} (${fateOfOld(kind)})`);
  }
  if (opts.replace === true) for (const r of state.retire ?? []) lines.push(`${r.ref}: retires ${r.id} (replaced earlier)`);
  if (lines.length === 0) return;
  const what = `${lines.length} live ${lines.length === 1 ? 'change' : 'changes'} that move money or retire objects`;
  if (!f.canPrompt) {
    throw new UsageError(`refusing to apply ${what} without confirmation: pass --yes`, { hint: `nothing was sent: ${lines.join('; ')}` });
  }
  f.io.err(`LIVE mode, profile "${s.profileName.value}": seed apply would send\n${lines.map((l) => `  ${escapeText(l)}\n`).join('')}`);
  const { createPrompter } = await import('../../io/prompt.js');
  if (!(await createPrompter(f.io).confirm(`Apply ${what}?`, false))) throw new UsageError('not confirmed; nothing was sent');
}

export async function apply(f: Factory, ctx: CommandContext): Promise<void> {
  const setUp = setup(f, ctx);
  const { opts, statePath, loadEntries, loadState } = setUp;
  const problem = checkInt(1, 64)(asText(opts.concurrency ?? 8));
  if (problem) throw new UsageError(`--concurrency ${problem}`);
  const out = ctx.output!;
  const { entries, fields } = await loadEntries();
  if (opts.dryRun) {
    const loaded = await loadState();
    const planned = planSeed(entries, loaded.state, f.env);
    return printPlan(f, out, entries, planned, loaded, refusalsOf(entries, fields, planned, loaded.state), opts.replace === true);
  }
  // One apply of a state file at a time: a second waits (and says so) before it reads the state,
  // then finds there what the first did.
  const release = await lockState(statePath, (line) => f.io.err(`${escapeText(line)}\n`));
  try {
    await applyLocked(f, setUp, out, entries, fields, await loadState());
  } finally {
    release();
  }
}

async function applyLocked(
  f: Factory,
  { opts, s, statePath, tenant }: ReturnType<typeof setup>,
  out: OutputSettings,
  entries: Entry[],
  fields: Awaited<ReturnType<typeof checkSeedFields>>,
  loaded: LoadedState,
): Promise<void> {
  const concurrency = Number(opts.concurrency ?? 8);
  const state = loaded.state;
  // A state file set aside is said when it is moved (before the fresh state is first saved): a run
  // refused before that (live mode without --yes, a replacement without --replace) moves nothing.
  let note: Record<string, unknown> = {};
  // Off a terminal, a live apply that moves money without --yes is refused before any request, even
  // a read. A replace without --replace is refused after the read-back below: a tampered state file
  // also looks like an edit (a card whose account id changed), and its mismatch (exit 1) must win
  // over a hint to pass --replace.
  const unverified = planSeed(entries, state, f.env);
  const sendable = (changes: Change[], refused: Refused) => changes.filter((c) => !refused.has(c.ref));
  if (!f.canPrompt) await confirmLive(f, opts, entries, sendable(unverified, refusalsOf(entries, fields, unverified, state)), state);
  const client = await f.client();
  // The state file is not trusted: what it records is read back (GETs only) before the plan is made.
  const verified = await verifyState(client, entries, state, s.mode.value, concurrency);
  const changes = planSeed(entries, state, f.env);
  // What the plan refuses is not sent (each says so), and is no replacement to confirm.
  const planRefused = refusalsOf(entries, fields, changes, state);
  if (!opts.replace) refuseReplacements(sendable(changes, planRefused));
  await confirmLive(f, opts, entries, sendable(changes, planRefused), state);
  const { outcomes, retirements } = await applySeed(entries, state, {
    client,
    tenant,
    mode: s.mode.value,
    baseUrl: s.baseUrl.value,
    env: f.env,
    concurrency,
    statePath,
    replace: opts.replace === true,
    setAside: loaded.setAside && {
      ...loaded.setAside,
      onMoved: (movedTo: string) => {
        loaded.setAside!.movedTo = movedTo;
        note = setAsideNote(f, loaded, true);
      },
    },
    verified,
    progress: progressBar(f.io, 'seed'),
    clock: f.clock,
    planRefused,
  });
  await printApply(f, out, outcomes, retirements, note);
}

export async function plan(f: Factory, ctx: CommandContext): Promise<void> {
  const { load } = setup(f, ctx);
  const { entries, fields, loaded } = await load();
  const changes = planSeed(entries, loaded.state, f.env);
  await printPlan(f, ctx.output!, entries, changes, loaded, refusalsOf(entries, fields, changes, loaded.state));
}

/** Without --replace, an entry that cannot be updated in place stops the run before anything is sent. */
function refuseReplacements(changes: Change[]): void {
  const replaces = changes.filter((c) => c.action === 'replace');
  if (replaces.length === 0) return;
  const n = replaces.length === 1 ? '1 entry' : `${replaces.length} entries`;
  const message = `${n} changed in a way the API cannot update in place: ${replaces.map((c) => c.ref).join(', ')}; nothing was sent`;
  const hint = `run again with --replace to create ${replaces.length === 1 ? 'it' : 'them'} anew; the old objects would be: ${replaces
    .map((c) => `${c.id} ${fateOfOld(kindOfRef(c.ref))}`)
    .join('; ')}`;
  throw new UsageError(message, {
    hint,
    text: [`error: ${message}`, ...replaces.map((c) => `  ${c.ref}: ${describe(c, kindOfRef(c.ref))}`), `hint: ${hint}`],
    details: {
      replace: replaces.map((c) => ({
        ref: c.ref,
        id: c.id,
        fields: c.fields,
        follows: c.follows,
        reason: c.reason,
        old: fateOfOld(kindOfRef(c.ref)),
      })),
    },
  });
}

async function printRows(f: Factory, out: OutputSettings, columns: TableColumn[], rows: object[]): Promise<void> {
  await new Printer(f.io, out, columns).printList(rows, 'entries');
}

/**
 * JSON maps names to ids (what a CI job wants to read back); the rows (-o ndjson, --fields) carry the
 * action. Keys without a dot are not entries: `retire` (plan: what apply --replace would retire),
 * `state_set_aside`.
 */
function printIdMap(
  f: Factory,
  out: OutputSettings,
  rows: Array<{ ref: string; id?: string | undefined }>,
  extra: Record<string, unknown> = {},
): void {
  new Printer(f.io, out, []).printValue({ ...Object.fromEntries(rows.map((o) => [o.ref, o.id ?? null])), ...extra });
}

async function printPlan(
  f: Factory,
  out: OutputSettings,
  entries: Entry[],
  changes: Change[],
  loaded: LoadedState,
  refused: Refused,
  replace = false,
): Promise<void> {
  const state = loaded.state;
  const note = setAsideNote(f, loaded, false);
  const blocked = blockedBy(entries, refused);
  // A refused entry: apply sends nothing for it, and blocks what waits for it.
  const rows: Array<{ ref: string; action: string; id?: string; detail: string }> = changes.map((c) => {
    const no = refused.get(c.ref);
    const by = blocked.get(c.ref);
    return {
      ref: c.ref,
      action: no ? 'refused' : by ? 'blocked' : c.action,
      ...(c.id ? { id: c.id } : {}),
      detail: no ? no.reason : by ? `waits for ${by}, which is refused` : describe(c, kindOfRef(c.ref)),
    };
  });
  // What apply --replace would retire, before it does: objects replaced earlier, and those this plan replaces.
  const retire = [
    ...(state.retire ?? []).map((r) => ({
      ref: r.ref,
      id: r.id,
      detail: `replaced earlier${r.replaced_by ? ` by ${r.replaced_by}` : ''}; apply --replace: ${fateOfOld(kindOfRef(r.ref))}`,
    })),
    ...changes
      .filter((c) => c.action === 'replace' && c.id && RETIRES[kindOfRef(c.ref)])
      .map((c) => ({ ref: c.ref, id: c.id!, detail: `replaced by this apply; apply --replace: ${fateOfOld(kindOfRef(c.ref))}` })),
  ];
  const retireRows = retire.map((r) => ({ ref: r.ref, action: 'retire', id: r.id, detail: r.detail }));
  const refusedRows = rows.filter((r) => r.action === 'refused');
  if (out.format === 'json' && !out.fields)
    printIdMap(f, out, rows, {
      ...(retire.length ? { retire: retire.map(({ ref, id }) => ({ ref, id })) } : {}),
      ...(refusedRows.length ? { refused: refusedRows.map(({ ref, detail }) => ({ ref, reason: detail })) } : {}),
      ...note,
    });
  else await printRows(f, out, PLAN_COLUMNS, [...rows, ...retireRows]);
  const count = (a: Change['action']) => changes.filter((c) => c.action === a && !refused.has(c.ref) && !blocked.has(c.ref)).length;
  f.io.err(
    `plan: ${count('create')} to create, ${count('update')} to update, ${count('replace')} to replace, ${count('skip')} already done` +
      `${refused.size ? `, ${refused.size} refused` : ''}${blocked.size ? `, ${blocked.size} blocked` : ''}\n`,
  );
  if (count('replace') > 0) {
    if (out.format === 'json' && !out.fields)
      for (const c of changes) if (c.action === 'replace') f.io.err(`  ${escapeText(`${c.ref}: ${describe(c, kindOfRef(c.ref))}`)}\n`);
    if (!replace) f.io.err(`plan: apply replaces only with --replace\n`);
  }
  const pending = state.retire ?? [];
  if (pending.length > 0)
    f.io.err(
      `plan: ${pending.length} replaced ${pending.length === 1 ? 'object is' : 'objects are'} still to be retired by apply: ${escapeText(pending.map((r) => `${r.id} (${r.ref})`).join(', '))}\n`,
    );
  const inFile = new Set(entries.map((e) => e.ref));
  const gone = Object.keys(state.entries).filter((ref) => !inFile.has(ref));
  if (gone.length > 0)
    f.io.err(
      `plan: ${gone.length} ${gone.length === 1 ? 'entry' : 'entries'} of the state file no longer in the file, left as they are: ${escapeText(gone.join(', '))}\n`,
    );
  if (refused.size > 0) {
    const n = refused.size === 1 ? '1 seed entry' : `${refused.size} seed entries`;
    const list = [...refused];
    throw new PayError(`${n} would be refused: ${list.map(([ref]) => ref).join(', ')}`, list[0]![1].exitCode as 1, 'seed_plan_refused', {
      text: [
        `error: ${n} would be refused; apply sends nothing for ${refused.size === 1 ? 'it' : 'them'}`,
        ...list.map(([ref, r]) => `  ${ref}: ${r.reason}`),
      ],
      hint: 'fix the entries in the file, then run the plan again',
      details: { refused: list.map(([ref, r]) => ({ ref, reason: r.reason })) },
    });
  }
}

/** What to change in entries that settled as failed, for the kinds among them only (a KYC entry's documents, a money movement's amount). */
function settledCauses(settled: Outcome[]): string {
  const kinds = new Set(settled.map((o) => kindOfRef(o.ref)));
  const causes: string[] = [];
  if (kinds.has('kyc')) causes.push('a KYC document number not ending 0000');
  if ([...kinds].some((k) => k !== 'kyc')) causes.push('an amount whose minor units do not end in 13');
  return causes.join(', ');
}

async function printApply(
  f: Factory,
  out: OutputSettings,
  outcomes: Outcome[],
  retirements: Retirement[],
  note: Record<string, unknown>,
): Promise<void> {
  const rows: Array<Outcome & { old_status?: string }> = outcomes.map((o) => ({ ...o }));
  for (const r of retirements) {
    const row = rows.find((o) => o.ref === r.ref);
    if (row && (row.old_id === undefined || row.old_id === r.id)) Object.assign(row, { old_id: r.id, old_status: r.status });
  }
  if (out.format === 'json' && !out.fields) printIdMap(f, out, rows, note);
  else await printRows(f, out, APPLY_COLUMNS, rows);
  const count = (s: Outcome['status']) => outcomes.filter((o) => o.status === s).length;
  f.io.err(
    `seed: ${count('created')} created, ${count('replayed')} replayed, ${count('updated')} updated, ${count('replaced')} replaced, ` +
      `${count('skipped')} skipped, ${count('failed')} failed, ${count('blocked')} blocked${count('recreated') ? `, ${count('recreated')} recreated (the service no longer had ${count('recreated') === 1 ? 'it' : 'them'})` : ''}\n`,
  );
  for (const o of outcomes) if (o.contradicted && o.note) f.io.err(`warning: ${escapeText(o.note)}\n`);
  for (const r of retirements) {
    const what = r.status === 'kept' ? 'left behind' : r.status === 'pending' ? 'not retired yet' : r.status;
    f.io.err(`  ${escapeText(`old ${r.id} (${r.ref}): ${what}${r.note ? `: ${r.note}` : ''}`)}\n`);
  }
  const failures = outcomes.filter((o) => o.status === 'failed');
  if (failures.length > 0) {
    for (const o of failures.slice(0, 10)) f.io.err(`  ${escapeText(`${o.ref}: ${o.error}`)}\n`);
    const n = `${failures.length} seed ${failures.length === 1 ? 'entry' : 'entries'} failed`;
    const mismatched = failures.filter((o) => o.mismatch);
    if (mismatched.length > 0) {
      throw new PayError(
        `${n}: the state file does not match the service for ${mismatched.map((o) => o.ref).join(', ')}; nothing that depends on ${mismatched.length === 1 ? 'it' : 'them'} was sent`,
        1,
        'seed_state_mismatch',
        {
          hint: 'the state file was edited or belongs to other data: remove those entries (or the file) and run again',
        },
      );
    }
    // The action that finishes the job: a refusal needs its cause fixed first (its retry gets a new key); anything else, the same command.
    const refused = failures.filter((o) => o.refused);
    const settled = failures.filter((o) => o.settled);
    const hinted = failures.filter((o) => o.hint);
    const hint =
      hinted.length === failures.length
        ? `${hinted.map((o) => o.ref).join(', ')}: ${[...new Set(hinted.map((o) => o.hint))].join('; ')}`
        : settled.length === failures.length
          ? `${settled.map((o) => o.ref).join(', ')} settled as failed and would again: change ${settled.length === 1 ? 'that entry' : 'those entries'} (${settledCauses(settled)}), then run the same command again`
          : refused.length === failures.length
            ? `the service refused ${refused.map((o) => o.ref).join(', ')}: fix the cause (e.g. fund the account), then run the same command again; a refused entry is sent with a new idempotency key`
            : refused.length > 0
              ? `fix what the service refused (${refused.map((o) => o.ref).join(', ')}), then run the same command again to finish (nothing is duplicated; a refused entry is sent with a new idempotency key)`
              : 'run the same command again to finish (nothing is duplicated)';
    throw new PayError(n, (failures[0]!.exitCode ?? 1) as 1, 'seed_failed', { hint });
  }
}
