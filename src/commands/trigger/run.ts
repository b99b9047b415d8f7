// pay trigger <event-type>: creates, through the API only (so it works against the emulator and a
// real Sandbox), the objects that make the service emit that event, and waits until the event
// exists. One runner for every recipe (recipes.ts): each step done as steps.ts defines it, KYC and
// features on the customer steps shared with seed (src/seed/steps.ts); then the event waited for
// (event.ts) and what it created printed with it (print.ts). Settlements it builds on (KYC
// approval, a funding collection) are waited for with the --wait loop (src/verbs/wait.ts), the
// event with the same poll loop (src/lib/poll.ts) on the Factory's clock; one --wait-timeout
// bounds all the waiting. Every POST carries its own Idempotency-Key (the client's). --dry-run
// prints the first request and what would follow.
import type { ApiClient } from '../../api/client.js';
import type { CommandContext } from '../../cmdutil/decl.js';
import type { Factory } from '../../cmdutil/factory.js';
import type { WaitSpec } from '../../cmdutil/spec.js';
import { escapeText, escapeValue } from '../../io/escape.js';
import { fitStatus } from '../../io/fit-text.js';
import { closeNames, didYouMean } from '../../lib/distance.js';
import { DryRunStop, ExitCode, PayError, UsageError } from '../../lib/errors.js';
import { asText } from '../../lib/text.js';
import { pathOf } from '../../shared/domain.js';
import { EVENT_TYPES } from '../../shared/events.js';
import { REJECT_DOCUMENT_SUFFIX } from '../../shared/simulation.js';
import { isId } from '../../shared/validate.js';
import { confirmLiveRun } from '../../verbs/steps.js';
import { settled, waitFor, waitTimeoutSeconds } from '../../verbs/wait.js';
import { collections } from '../collections/index.js';
import { kyc } from '../kyc/index.js';
import { activateFeature, startKyc, submitDocuments, type StepAnswer, type StepPort } from '../../seed/steps.js';
import { checkOverrides } from './check.js';
import { applyOverrides, overrideOf, parseOverrides, type Overrides } from './override.js';
import { RECIPES, recipeObjects, stepObjects, type EventType, type ObjectName, type Recipe, type Step } from './recipes.js';
import { planMoney, questionLines, resolveBody, type PlannedRequest } from './plan.js';
import { STEPS, type RunSoFar, type StepDef } from './steps.js';
import { awaitEvent, type EventRun } from './event.js';
import { printRecipes, printResult, type TriggerResult } from './print.js';

type Obj = Record<string, unknown>;

export async function run(f: Factory, ctx: CommandContext): Promise<void> {
  const output = ctx.output!;
  const given = ctx.args[0];
  const type = typeof given === 'string' ? given : undefined;
  if (ctx.opts.list) {
    if (type !== undefined) throw new UsageError('pass an event type or --list, not both');
    return printRecipes(f, output);
  }
  if (type === undefined) {
    throw new UsageError('missing the event type', { hint: 'pay trigger --list lists them; e.g. pay trigger transfer.failed' });
  }
  const recipe = recipeOf(type);
  const timeoutMs = waitTimeoutSeconds(ctx.opts.waitTimeout) * 1000;
  const raws = ctx.opts.override;
  const overrides = parseOverrides(Array.isArray(raws) ? raws : raws === undefined ? [] : [raws], type, recipe);
  // Every value by the creating verb's own rules, before anything is sent (the dry run too).
  await checkOverrides(overrides);
  const client = await f.client();
  // The money requests built first: the live question is made from them, and the run sends them.
  const plan = planMoney(recipe, overrides);
  // Live mode: real customers and money, asked about once before the first request (--yes off a terminal).
  await confirmLiveRun(f, `"pay trigger ${type}"`, ctx.opts.yes === true, [
    `create live objects, all new (nothing existing is used): ${recipeObjects(recipe).join(', ')}`,
    ...questionLines(plan, overrides),
  ]);
  const trigger = new Trigger(f, client, type as EventType, recipe, overrides, plan, f.clock.now() + timeoutMs);
  let result: TriggerResult;
  try {
    result = await trigger.run();
  } catch (err) {
    if (err instanceof DryRunStop) f.io.err(`dry run: ${trigger.rest()}\n`);
    throw err;
  }
  await printResult(f, output, result);
}

/** The recipe of an event type; exit 2 for anything else, with a close one suggested. */
export function recipeOf(type: string): Recipe {
  if (Object.hasOwn(RECIPES, type)) return RECIPES[type as EventType];
  const guess = didYouMean(closeNames(type, EVENT_TYPES));
  throw new UsageError(`unknown event type "${escapeText(type.length > 60 ? `${type.slice(0, 60)}…` : type)}"`, {
    hint: `${guess ? `${guess} ` : ''}pay trigger --list lists all ${EVENT_TYPES.length}`,
  });
}

const COLLECTION_WAIT = collections.verbs.find((v) => v.name === 'create')!.wait!;
const KYC_DOCUMENT_WAIT = kyc.verbs.find((v) => v.name === 'submit-document')!.wait!;

// The amounts' helpers live with the plan of the money requests; they are this module's too.
export { amountOf, fundingFor } from './plan.js';

/** One run of a recipe: its steps, as steps.ts defines them, in order, then the event waited for. */
class Trigger implements RunSoFar, EventRun {
  readonly created: TriggerResult['created'] = [];
  private readonly state = new Map<ObjectName, Obj>();
  private verified = false;
  /** The service's clock: the last time an answer stated, and when (local ms) it was read. */
  private serverAt: { server: number; local: number } | undefined;

  constructor(
    readonly f: Factory,
    readonly client: ApiClient,
    readonly type: EventType,
    readonly recipe: Recipe,
    readonly overrides: Overrides,
    private readonly plan: readonly PlannedRequest[],
    readonly deadline: number,
  ) {}

  /** How many of the planned money requests were sent (they are sent in the plan's order). */
  private planned = 0;

  /** What the dry run's first request starts, for its note. */
  rest(): string {
    const objects = [...new Set(this.recipe.steps.flatMap((s) => stepObjects(s)))];
    return (
      `the request above is the first of pay trigger ${this.type}: it creates ${objects.join(', ')} in turn ` +
      `(each request needs the ids the ones before it answer), then waits for the ${this.type} event`
    );
  }

  async run(): Promise<TriggerResult> {
    for (const step of this.recipe.steps) await this.step(step);
    const subject = this.state.get(this.recipe.subject);
    const subjectId = asText(subject?.id);
    const event = await awaitEvent(this, subjectId);
    if (this.f.io.stderrIsTTY) this.f.io.err(fitStatus(`✓ Triggered ${this.type}: ${escapeValue(event.id)}\n`, this.f.io.terminalWidth));
    return { event_type: this.type, created: this.created, events: [event] };
  }

  // ------------------------------------------------------------------ steps

  /** An object the run made (what the steps' defaults read, steps.ts). */
  made(name: ObjectName): Obj | undefined {
    return this.state.get(name);
  }

  /** One step of the recipe, as its definition (steps.ts) says. */
  private async step(step: Step): Promise<void> {
    const def = STEPS[step.do] as StepDef;
    if ('create' in def) return void (await this.create(def.create, def.path, def.defaults(this, step)));
    if ('on' in def) return this.on(def);
    if ('planned' in def) {
      if (def.funded) await this.fund();
      return void (await this.sendPlanned(def.planned));
    }
    switch (def.compound) {
      case 'verify':
        return this.verify();
      case 'start_kyc':
        return void (await this.startKyc());
      case 'document':
        return void (await this.document(step.do === 'document' && step.rejected === true));
      case 'feature':
        return this.feature(step.do === 'feature' ? step.key : '');
      case 'payment_link':
        return this.paymentLink(step.do === 'payment_link' && step.expiring === true);
    }
  }

  /** A request on an object made earlier: an action (the object as it answers kept), a change or a removal. */
  private async on(def: Extract<StepDef, { on: unknown }>): Promise<void> {
    const id = this.idOf(def.on);
    const path = `${pathOf(def.on)}/${id}${def.verb ? `/${def.verb}` : ''}`;
    const body =
      def.method === 'DELETE'
        ? undefined
        : applyOverrides(structuredClone(def.defaults ?? {}), def.change && this.overrides.get(def.change));
    const obj = await this.send(def.what, def.method, path, body, { id });
    if (def.method === 'POST') this.state.set(def.on, obj);
  }

  /** The steps' requests (src/seed/steps.ts) as pay trigger sends them: a POST that creates recorded as any other, each error naming its step. */
  private readonly port: StepPort = {
    send: async (r) => {
      const body = r.creates
        ? await this.post(r.creates, r.path, r.body ?? {})
        : await this.send(r.what, r.method, r.path, r.body, 'object');
      return { body, replayed: false };
    },
  };

  private startKyc(): Promise<StepAnswer> {
    return startKyc(this.port, this.idOf('customer'), applyOverrides({ level: 'basic' }, this.overrides.get('kyc_verification')));
  }

  /** A KYC verification approved: started, a document submitted, the decision waited for. */
  private async verify(): Promise<void> {
    if (this.verified) return;
    await this.startKyc();
    const doc = await this.document(false);
    await this.settle('waiting for the KYC review', KYC_DOCUMENT_WAIT, doc);
    this.verified = true;
  }

  private async document(rejected: boolean): Promise<Obj> {
    const c = this.state.get('customer') ?? {};
    const country = (c.address as Obj | undefined)?.country;
    const body = applyOverrides(
      {
        type: 'passport',
        country: typeof country === 'string' ? country : 'GB',
        number: rejected ? `X123${REJECT_DOCUMENT_SUFFIX}` : '123456789',
      },
      this.overrides.get('kyc_document'),
    );
    return (await submitDocuments(this.port, this.idOf('customer'), [body]))!;
  }

  /** The feature active for the customer: activated, after KYC approval when the service says it is not eligible yet. */
  private async feature(key: string): Promise<void> {
    const after = await activateFeature(this.port, this.idOf('customer'), key, { approve: () => this.verify() });
    if (after.body.active !== true) throw this.bad(`activating the ${key} feature`, `the answer does not say it is active`);
  }

  /** The account funded by the planned collection, which settled (the collections feature active first). */
  private async fund(): Promise<void> {
    await this.feature('collections');
    const col = await this.sendPlanned('collection');
    this.state.set('collection', await this.settle('funding the account', COLLECTION_WAIT, col));
  }

  /**
   * The next planned money request (planMoney: built, under the overrides, before the live
   * question), sent as it was planned: only the ids of the objects this run created filled in.
   */
  private async sendPlanned(object: PlannedRequest['object']): Promise<Obj> {
    const p = this.plan[this.planned];
    if (p?.object !== object) throw new Error(`internal: pay trigger ${this.type} sends a ${object} its plan does not have here`);
    this.planned++;
    const body = resolveBody(
      p.body,
      (name) => this.idOf(name),
      () => asText(this.need('fx_quote').source_amount),
    );
    return this.post(object, p.path, body);
  }

  private async paymentLink(expiring: boolean): Promise<void> {
    const wallet = this.need('wallet');
    const body = (margin: number): Obj => ({
      wallet_id: wallet.id,
      amount: '25.00',
      asset: wallet.asset,
      description: 'pay trigger',
      ...(expiring ? { expires_at: new Date(this.serverNow() + margin).toISOString() } : {}),
    });
    const own = overrideOf(this.overrides, 'payment_link', 'expires_at') !== undefined;
    // The expiry is a few seconds ahead of the service's clock; should the request take longer
    // than that to arrive (422 on expires_at), it is sent again further ahead.
    for (let margin = 3000; ; margin *= 2) {
      try {
        await this.create('payment_link', 'payment-links', body(margin));
        return;
      } catch (err) {
        const late = err instanceof PayError && err.fieldErrors.some((e) => e.field === 'expires_at');
        if (!expiring || own || !late || margin >= 24_000) throw err;
      }
    }
  }

  // ------------------------------------------------------------------ requests

  private need(name: ObjectName): Obj {
    const o = this.state.get(name);
    if (!o) throw new Error(`internal: pay trigger ${this.type} needs a ${name} before this step`);
    return o;
  }

  idOf(name: ObjectName): string {
    return asText(this.need(name).id);
  }

  /** POSTs a new object (its defaults under the overrides), records it, and says so on a terminal. */
  private async create(name: ObjectName, path: string, defaults: Obj): Promise<Obj> {
    return this.post(name, path, applyOverrides(defaults, this.overrides.get(name)));
  }

  /** POSTs a new object's body as it is, records it, and says so on a terminal. */
  private async post(name: ObjectName, path: string, body: Obj): Promise<Obj> {
    const obj = await this.send(`creating the ${name.replace(/_/g, ' ')}`, 'POST', path, body, 'resource');
    const id = asText(obj.id);
    if (!isId(id)) throw this.bad(`creating the ${name.replace(/_/g, ' ')}`, 'the answer has no id');
    this.state.set(name, obj);
    const object = typeof obj.object === 'string' && /^[a-z_]{1,40}$/.test(obj.object) ? obj.object : name;
    this.created.push({ object, id });
    if (this.f.io.stderrIsTTY) this.f.io.err(fitStatus(`  created ${object} ${id}\n`, this.f.io.terminalWidth));
    return obj;
  }

  /** One request; an error names the step and what was created so far (left in place). */
  private async send(
    what: string,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body: Obj | undefined,
    expect: 'object' | 'resource' | { id: string },
  ): Promise<Obj> {
    try {
      const res = await this.client.request<Obj>({ method, path, ...(body !== undefined ? { body } : {}), expect });
      this.clockFrom(res.body);
      return res.body;
    } catch (err) {
      throw this.wrap(what, err);
    }
  }

  /** Waits for an object to settle (the --wait loop) and insists on its success state. */
  private async settle(what: string, spec: WaitSpec, answer: Obj): Promise<Obj> {
    try {
      const obj = settled(
        spec,
        await waitFor(this.client, spec, answer, {
          timeoutMs: Math.max(1, this.deadline - this.f.clock.now()),
          io: this.f.io,
          clock: this.f.clock,
        }),
      );
      this.clockFrom(obj);
      return obj;
    } catch (err) {
      throw this.wrap(what, err);
    }
  }

  wrap(what: string, err: unknown): unknown {
    if (!(err instanceof PayError) || err instanceof DryRunStop) return err;
    const so =
      this.created.length > 0 ? `created so far (left in place): ${this.created.map((c) => `${c.object} ${c.id}`).join(', ')}` : '';
    return new PayError(`pay trigger ${this.type}: ${what}: ${err.message}`, err.exitCode, err.code, {
      ...(err.hint || so ? { hint: [err.hint, so].filter(Boolean).join('; ') } : {}),
      details: { ...err.details, created: this.created },
      fieldErrors: err.fieldErrors,
      cause: err,
    });
  }

  bad(what: string, problem: string): PayError {
    return new PayError(`pay trigger ${this.type}: ${what}: ${problem}`, ExitCode.ERROR, 'bad_response', {
      details: { created: this.created },
    });
  }

  private clockFrom(obj: unknown): void {
    const o = obj as Obj | null;
    const stamp = o && typeof o === 'object' ? (o.updated_at ?? o.created_at) : undefined;
    const server = typeof stamp === 'string' ? Date.parse(stamp) : NaN;
    if (Number.isFinite(server)) this.serverAt = { server, local: Date.now() };
  }

  /** The service's time now, as its answers tell it (its clock may differ from this machine's). */
  private serverNow(): number {
    return this.serverAt ? this.serverAt.server + (Date.now() - this.serverAt.local) : Date.now();
  }
}
