// The contract as `pay openapi` prints it, through the tools people validate OpenAPI documents
// with: @apidevtools/swagger-parser's validate() and Spectral's `spectral:oas` ruleset, each with
// no finding at all (errors, warnings, infos and hints alike). A finding fails the test with the
// tool's own message. (Redocly runs in openapi.test.ts, Prism in prism.test.ts and
// readme-recipes.test.ts, openapi-typescript and openapi-fetch in readme-recipes.test.ts.)
import SwaggerParser from '@apidevtools/swagger-parser';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { printedContract } from '../helpers/printed-contract.js';
import { tempDir } from '../helpers/run-pay.js';

const SPECTRAL = new URL('../../node_modules/.bin/spectral', import.meta.url).pathname;

/**
 * Runs the Spectral CLI once over some files with the `spectral:oas` ruleset; each file's findings
 * as `line:col severity code message (path)` lines.
 */
function spectral(files: string[]): { findings: Map<string, string[]>; output: string; status: number | null } {
  const dir = tempDir('pay-spectral-');
  const rules = join(dir, '.spectral.yaml');
  writeFileSync(rules, 'extends: ["spectral:oas"]\n');
  const run = spawnSync(SPECTRAL, ['lint', ...files, '--ruleset', rules, '--format', 'json', '--fail-severity', 'hint', '--quiet'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, SCARF_ANALYTICS: 'false', NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  const output = `${run.stdout}\n${run.stderr}`;
  const start = run.stdout.indexOf('[');
  const results = start < 0 ? [] : (JSON.parse(run.stdout.slice(start)) as Array<Record<string, any>>);
  const severities = ['error', 'warning', 'info', 'hint'];
  const findings = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const r of results) {
    const line = `${r.range.start.line + 1}:${r.range.start.character + 1} ${severities[r.severity as number]} ${r.code} ${r.message} (${(r.path as string[]).join('.')})`;
    const source = files.find((f) => f === r.source) ?? files[0]!;
    findings.get(source)!.push(line);
  }
  return { findings, output, status: run.status };
}

describe('the printed contract through third-party validators', () => {
  it('@apidevtools/swagger-parser validate() accepts it (its OpenAPI 3.1 schema, then its own checks)', async () => {
    // A rejection throws with the tool's message ("Swagger schema validation failed. …"), failing the test with it.
    const api = (await SwaggerParser.validate(printedContract().file)) as { openapi?: string; paths?: Record<string, unknown> };
    expect(api.openapi).toBe('3.1.0');
    expect(Object.keys(api.paths ?? {})).toEqual(Object.keys(printedContract().doc.paths));
  }, 60_000);

  it('swagger-parser is not vacuous: it refuses what it refused before the contract was fixed', async () => {
    const broken = structuredClone(printedContract().doc) as unknown as { servers: Array<Record<string, any>> };
    broken.servers[0]!.variables.host.description = 'The service host.';
    await expect(SwaggerParser.validate(broken as never)).rejects.toThrow(/unevaluated properties/);
  }, 60_000);

  it('Spectral (spectral:oas) finds nothing: 0 errors, 0 warnings, 0 infos, 0 hints; a document without info.contact draws a warning', () => {
    // One run over two files: the printed contract, and a small document without info.contact that proves the run is not vacuous.
    const broken = join(tempDir('pay-spectral-doc-'), 'openapi.json');
    const { info } = printedContract().doc as unknown as { info: Record<string, unknown> };
    writeFileSync(broken, JSON.stringify({ openapi: '3.1.0', info: { ...info, contact: undefined }, servers: [], paths: {} }));
    const run = spectral([printedContract().file, broken]);
    expect(run.findings.get(printedContract().file), run.output).toEqual([]);
    expect(run.findings.get(broken)!.join('\n'), run.output).toMatch(/warning info-contact/);
    expect(run.status, run.output).toBe(1);
  }, 120_000);
});
