// The contract as a user gets it: what the built `pay openapi` prints, saved to a file. The
// third-party tools (Prism, swagger-parser, Spectral, Redocly, openapi-typescript) are run on this
// file, never on a document rebuilt in the test process: a difference between the two would be a
// bug the tools must see.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenApiDocument } from '../../src/api/contract/types.js';
import { PAY_BIN, cleanEnv, tempDir } from './run-pay.js';

export interface PrintedContract {
  /** The JSON text exactly as printed. */
  text: string;
  doc: OpenApiDocument;
  /** A file holding `text` (pay-openapi.json in a temporary folder). */
  file: string;
}

let printed: PrintedContract | undefined;

/** Runs `pay openapi` once per test file and keeps its output. */
export function printedContract(): PrintedContract {
  if (printed) return printed;
  const r = spawnSync(process.execPath, [PAY_BIN, 'openapi'], { env: cleanEnv(), encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`pay openapi exited ${r.status}: ${r.stderr}`);
  const file = join(tempDir('pay-openapi-'), 'pay-openapi.json');
  writeFileSync(file, r.stdout);
  printed = { text: r.stdout, doc: JSON.parse(r.stdout) as OpenApiDocument, file };
  return printed;
}

/**
 * The printed contract with Prism's base-path quirk handled, as the README's recipe does it with
 * jq (`.paths |= with_entries(.key |= "/v1" + .) | .servers |= map(.url |= rtrimstr("/v1"))`):
 * Prism 5 matches request paths against the `paths` keys alone and ignores the servers' path, so
 * the /v1 prefix moves from the servers into the paths. Nothing else changes.
 */
export function contractForPrism(): string {
  const doc = structuredClone(printedContract().doc) as unknown as {
    servers: Array<{ url: string }>;
    paths: Record<string, unknown>;
  };
  doc.paths = Object.fromEntries(Object.entries(doc.paths).map(([p, v]) => [`/v1${p}`, v]));
  doc.servers = doc.servers.map((s) => ({ ...s, url: s.url.replace(/\/v1$/, '') }));
  return JSON.stringify(doc, null, 2);
}
