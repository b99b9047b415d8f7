// What pay trigger prints: the run's result (JSON: the object; a table or TSV: a row per object
// created, then the event) and --list (every event type with what it creates).
import type { Factory } from '../../cmdutil/factory.js';
import { Printer, type TableColumn } from '../../io/output.js';
import type { OutputSettings } from '../../io/output-options.js';
import { EVENT_TYPES } from '../../shared/events.js';
import { RECIPES, recipeObjects, type EventType } from './recipes.js';

export interface TriggerResult {
  event_type: EventType;
  created: Array<{ object: string; id: string }>;
  events: Array<{ id: string; type: string }>;
}

const RESULT_COLUMNS: TableColumn[] = [
  { header: 'OBJECT', path: 'object', priority: 2 },
  { header: 'ID', path: 'id', kind: 'id', priority: 1 },
  { header: 'EVENT TYPE', path: 'type', priority: 3 },
];

/**
 * JSON: the result object; a table or TSV: one row per object created, then the event. On a
 * terminal (stdout and stderr both, a table without --fields) nothing more: the run's own lines
 * (`created <object> <id>` as each was made, then `✓ Triggered <type>: <evt_…>`, run.ts) said it
 * all once, as it happened; a table after them would say it again.
 */
export async function printResult(f: Factory, output: OutputSettings, result: TriggerResult): Promise<void> {
  const printer = new Printer(f.io, output, RESULT_COLUMNS);
  if (output.jq || printer.format === 'json' || printer.format === 'ndjson') return printer.printValue(result);
  if (printer.format === 'table' && !output.fields && f.io.stdoutIsTTY && f.io.stderrIsTTY) return;
  const rows = [...result.created, ...result.events.map((e) => ({ object: 'event', id: e.id, type: e.type }))];
  await printer.printList(rows, 'object');
}

const LIST_COLUMNS: TableColumn[] = [
  { header: 'EVENT TYPE', path: 'event_type', kind: 'id', priority: 1 },
  { header: 'CREATES', path: 'creates', priority: 2 },
];

/** --list: every event type with what it creates. */
export async function printRecipes(f: Factory, output: OutputSettings): Promise<void> {
  const rows = EVENT_TYPES.map((t) => ({ event_type: t, creates: RECIPES[t].creates, override: recipeObjects(RECIPES[t]) }));
  const printer = new Printer(f.io, output, LIST_COLUMNS);
  if (output.jq || printer.format === 'json') return printer.printValue(rows);
  await printer.printList(rows, 'event type');
}
