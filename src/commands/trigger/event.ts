// pay trigger's last step: the event waited for. The events about the recipe's subject are polled
// (GET /webhooks/events?object_id=…, the one poll loop of src/lib/poll.ts on the Factory's clock)
// until one of the type is there, or a rival one says the steps took the other path.
import type { ApiClient } from '../../api/client.js';
import type { Factory } from '../../cmdutil/factory.js';
import { ExitCode, PayError } from '../../lib/errors.js';
import { pollUntil } from '../../lib/poll.js';
import { OBJECT_KINDS } from '../../shared/domain.js';
import { isId } from '../../shared/validate.js';
import type { TriggerResult } from './print.js';
import type { EventType, Recipe } from './recipes.js';

type Obj = Record<string, unknown>;

/** What the wait reads of the run: its Factory and client, the type and recipe, the deadline, what it created, and how it words an error. */
export interface EventRun {
  readonly f: Factory;
  readonly client: ApiClient;
  readonly type: EventType;
  readonly recipe: Recipe;
  readonly deadline: number;
  readonly created: TriggerResult['created'];
  wrap(what: string, err: unknown): unknown;
  bad(what: string, problem: string): PayError;
}

/** Polls the events about the subject (the one poll loop) until one of the wanted type is there, or a rival one says it went the other way. */
export async function awaitEvent(run: EventRun, subjectId: string): Promise<{ id: string; type: string }> {
  return pollUntil({
    clock: run.f.clock,
    spinner: { io: run.f.io, text: `Waiting for the ${run.type} event about ${subjectId}` },
    deadline: {
      at: run.deadline,
      error: () =>
        new PayError(`pay trigger ${run.type}: no ${run.type} event about ${subjectId} yet after waiting`, ExitCode.ERROR, 'wait_timeout', {
          hint: `it may still come: pay webhooks list --object ${subjectId}; more time: --wait-timeout`,
          details: { created: run.created },
        }),
    },
    step: async () => {
      const events = await eventsAbout(run, subjectId);
      const hit = events.find((e) => e.type === run.type);
      if (hit) return hit;
      const rival = events.find((e) => (run.recipe.rivals as readonly string[] | undefined)?.includes(e.type));
      if (rival) {
        throw new PayError(
          `pay trigger ${run.type}: the service emitted ${rival.type} (${rival.id}) instead: an --override changed the outcome?`,
          ExitCode.ERROR,
          'other_event',
          { hint: `see it with: pay webhooks get ${rival.id}`, details: { created: run.created, events: [rival] } },
        );
      }
      return undefined;
    },
  });
}

async function eventsAbout(run: EventRun, subjectId: string): Promise<Array<{ id: string; type: string }>> {
  const what = `GET /webhooks/events?object_id=${subjectId}`;
  let body: Obj;
  try {
    const res = await run.client.request<Obj>({
      method: 'GET',
      path: 'webhooks/events',
      query: { object_id: subjectId, limit: 100 },
      expect: 'object',
    });
    body = res.body;
  } catch (err) {
    throw run.wrap(`reading the events about ${subjectId}`, err);
  }
  const data = body.data;
  if (!Array.isArray(data)) throw run.bad(what, 'the answer is not a list of events');
  return data.map((e: unknown) => {
    const ev = (e ?? {}) as Obj;
    if (!isId(ev.id, OBJECT_KINDS.event.prefix) || typeof ev.type !== 'string')
      throw run.bad(what, 'an item is not an event (evt_… with a type)');
    return { id: ev.id, type: ev.type };
  });
}
