// An event's journal line, written by hand: its data.object as a reference to the record it is
// about when that record stands as the event shows it (the replay fills it in, app.ts), and the
// delivery of an event made while no URL is set as a constant text (most events are never read).
import { quotedScope, type Store } from './store.js';
import type { Rec, WebhookEvent } from './types.js';

/**
 * The journal op of an event whose data.object is a record's object as that record stands (the
 * same object, not a copy): written with `"data":{}` and `"d":<the record's id>`, the replay
 * filling data.object in from the record (app.ts). Undefined for any other event.
 * `since`: in a snapshot written over several turns, the store's counter when it began; the
 * reference is only written for a subject unchanged since (its copy in the snapshot is the same).
 * `delivery`: the delivery's JSON when the caller knows it (emit(): UNDELIVERED_JSON).
 */
export function eventOp(store: Store, rec: Rec<WebhookEvent>, since = Infinity, delivery?: string): string | undefined {
  const e = rec.obj;
  const object = e.data.object as { id?: unknown } | null;
  if (object === null || typeof object !== 'object' || typeof object.id !== 'string') return undefined;
  // The fields written below, and no others (id, object, livemode, created_at, type, data, delivery).
  if (Object.keys(e).length !== 7) return undefined;
  const subject = store.byId.get(object.id);
  if (!subject || subject.obj !== object || subject.id === rec.id || subject.v > since) return undefined;
  return eventLine(rec, '{}', subject.id, delivery);
}

/**
 * JSON.stringify of the delivery emit() makes while no URL is set (the usual case), the same
 * text, written without the call (test/emulator/fingerprint.test.ts compares the two).
 */
export const UNDELIVERED_JSON = '{"status":"pending","attempts":0,"last_response_code":null,"last_attempt_at":null,"next_attempt_at":null}';

/** An event's put op with `data` as given (JSON text), and `"d"` when data.object is a reference. */
export function eventLine(rec: Rec<WebhookEvent>, data: string, ref?: string, delivery = JSON.stringify(rec.obj.delivery)): string {
  const e = rec.obj;
  const x = rec.x === undefined ? '' : `,"x":${JSON.stringify(rec.x)}`;
  return (
    `{"p":"event","s":${quotedScope(rec.scope)},"o":{"id":"${e.id}","object":"event","livemode":${e.livemode},"created_at":"${e.created_at}","type":${JSON.stringify(e.type)},` +
    `"data":${data},"delivery":${delivery}}${ref === undefined ? '' : `,"d":"${ref}"`}${x}}`
  );
}
