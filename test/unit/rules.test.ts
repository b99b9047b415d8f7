// The rules table is written once as data (src/shared/rules.ts) and once in words
// (src/api/DESIGN.md, "Business rules"): the two say the same, row by row.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FEATURES, RULE_KEYS, RULES } from '../../src/shared/rules.js';

const design = readFileSync(new URL('../../src/api/DESIGN.md', import.meta.url), 'utf8');
const section = design.slice(design.indexOf('## Business rules'), design.indexOf('## Resources, operations'));
const rows = new Map(
  [...section.matchAll(/^\| `([a-z_.]+)` \|(.*)\|$/gm)].map((m) => [m[1]!, m[2]!.split('|').map((c) => c.trim())] as const),
);

describe('DESIGN.md "Business rules" is the table of src/shared/rules.ts', () => {
  it('one row per rule, in the same order', () => {
    expect([...rows.keys()]).toEqual([...RULE_KEYS]);
  });

  it.each(RULE_KEYS)('%s: operation, KYC need, feature and refusal', (key) => {
    const [operation, , kyc, feature, refusal] = rows.get(key)!;
    const r = RULES[key];
    expect(operation).toContain(`\`${r.operationId}\``);
    if (!r.when) expect(operation).toContain(`\`${r.command}\``);
    expect(kyc).toBe(r.kyc === 'approved' ? 'approved' : 'not rejected');
    expect(feature).toBe(r.feature ? `\`${r.feature}\`` : '—');
    expect(refusal).toBe(`${r.feature ? '`kyc_required` / `feature_not_active`' : '`kyc_required`'} on \`${r.field}\``);
  });

  it('says which features need approval, as FEATURES does', () => {
    const approval = FEATURES.filter((f) => f.kyc === 'approved').map((f) => `\`${f.key}\``);
    const other = FEATURES.filter((f) => f.kyc !== 'approved').map((f) => `\`${f.key}\``);
    const text = section.replace(/\s+/g, ' ');
    expect(text).toContain(`features (${approval.join(', ')}) need approval`);
    expect(text).toContain(`the others (${other.join(', ')})`);
  });
});
