// The replay note's "see it now with" (src/cmdutil/replay.ts) for every POST of the contract, as
// the service would replay it (the operation's example path and answer): the command it names
// parses in the tree, and run (in process), sends one GET the contract has, for the object the
// POST made or acted on (the same object, or one that holds it). `pay api GET` suggestions too.
import { describe, expect, it } from 'vitest';
import { openapi } from '../../src/api/openapi.js';
import { successRef } from '../../src/api/response-fields.js';
import { seeItNow } from '../../src/cmdutil/replay.js';
import { allGroups } from '../../src/commands/groups.js';
import { pay, type Recorded } from '../unit/commands/harness.js';
import { payArgvs } from '../unit/commands/shell-words.js';
import { allOperations } from './contract-helpers.js';
import { exampleRequests } from './examples-helpers.js';

/** The contract's GET operation a request path (under /v1/) fits, if any. */
function getAt(path: string): { template: string; operationId: string } | undefined {
  for (const { method, path: template, operation } of allOperations()) {
    if (method !== 'get') continue;
    const re = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (re.test(`/${path}`)) return { template, operationId: operation.operationId };
  }
  return undefined;
}

/** The schema an operation answers with (its $ref: the one reading, successRef), and the schemas such an answer holds (properties, array items). */
function answers(operationId: string): { ref: string | undefined; holds: string[] } {
  const ref = successRef(operationId);
  const schema = ref
    ? (openapi.components.schemas[ref.split('/').pop()!] as { properties?: Record<string, { $ref?: string; items?: { $ref?: string } }> })
    : undefined;
  const holds = Object.values(schema?.properties ?? {}).flatMap((p) => [p.$ref, p.items?.$ref].filter((x): x is string => !!x));
  return { ref, holds };
}

/** seeItNow over the published contract, as the replay note calls it. */
const seeItNowFor = (r: Parameters<typeof seeItNow>[0]) => seeItNow(r, allGroups, openapi, (op) => successRef(op));

const posts = exampleRequests().filter((r) => r.method === 'POST');
const verbOps = new Set(allGroups.flatMap((g) => g.verbs.filter((v) => v.method === 'POST').map((v) => v.operationId)));

describe('the replay note names a command that shows the object now', () => {
  it('covers every POST a verb sends', () => {
    for (const op of verbOps)
      expect(
        posts.map((p) => p.operationId),
        op,
      ).toContain(op);
  });

  it.each(posts.map((p) => [`${p.method} ${p.template}`, p] as const))('%s', async (_name, post) => {
    const path = post.path.replace(/^\//, '');
    const see = seeItNowFor({ method: 'POST', path, body: post.response });
    // Every POST a verb sends has one; pay api's other POSTs may have none, never a wrong one.
    if (verbOps.has(post.operationId)) expect(see, `${post.operationId} names no command`).toBeDefined();
    if (!see) return;
    const [argv] = payArgvs(see);
    expect(argv, see).toBeDefined();
    const made = answers(post.operationId).ref;
    const sent: Recorded[] = [];
    const r = await pay(argv!, {
      env: { PAY_TENANT_ID: 'biz_1' },
      respond: (req) => {
        sent.push(req);
        const get = req.method === 'GET' ? getAt(req.path) : undefined;
        if (!get)
          return { status: 404, body: { type: 'about:blank', title: 'Not found', status: 404, code: 'not_found', detail: 'no route' } };
        // The GET's own example, with the id the command asked for where it names one.
        const example = exampleRequests().find((e) => e.operationId === get.operationId)!.response as Record<string, unknown>;
        const last = req.path.split('/').pop()!;
        return { status: 200, body: /^[a-z]+_[0-9a-z]{24}$/.test(last) ? { ...example, id: last } : example };
      },
    });
    expect(r.code, `${see}\n${r.stderr}`).toBe(0);
    expect(sent, see).toHaveLength(1);
    expect(sent[0]!.method).toBe('GET');
    const get = getAt(sent[0]!.path);
    expect(get, `${see} sends GET ${sent[0]!.path}, which the contract lacks`).toBeDefined();
    // The object itself, or one that holds it (a verification and its documents); an event with its attempts.
    const shown = answers(get!.operationId);
    const same =
      shown.ref === made || shown.holds.includes(made!) || (made?.endsWith('/Event') && shown.ref?.endsWith('/EventWithAttempts'));
    expect(same, `${see} shows ${shown.ref}, not ${made}`).toBe(true);
    // And the object the POST made or acted on: its id, or the path it was made under.
    const id = (post.response as { id?: string }).id;
    const path1 = sent[0]!.path;
    expect(
      id !== undefined && path1.includes(id)
        ? true
        : path.startsWith(path1) || Object.values(post.response as object).some((v) => typeof v === 'string' && path1.includes(v)),
      `${see} → ${path1}`,
    ).toBe(true);
  });

  it('kyc verify suggests pay kyc status with the customer id, not a route the API lacks', () => {
    const id = 'kyc_0123456789abcdefghijklmn';
    expect(seeItNowFor({ method: 'POST', path: 'customers/cus_0123456789abcdefghijklmn/kyc', body: { id } })).toBe(
      'pay kyc status cus_0123456789abcdefghijklmn',
    );
    expect(
      seeItNowFor({ method: 'POST', path: 'cards/card_0123456789abcdefghijklmn/freeze', body: { id: 'card_0123456789abcdefghijklmn' } }),
    ).toBe('pay cards get card_0123456789abcdefghijklmn');
    // Nothing the contract can show: no suggestion rather than a 404.
    expect(seeItNowFor({ method: 'POST', path: 'nowhere', body: { id: 'zz_0123456789abcdefghijklmn' } })).toBeUndefined();
  });
});
