// Every text that names a Sandbox simulation value is built from src/shared/simulation.ts: with the
// values changed here (a document suffix, a failing and a holding ending), `pay help rules`, the kyc
// group's help and `pay trigger --list` say the new ones and none of the real ones. A text that
// spells a value out (it said "ending in 0000", or 25.14 for a held transfer that is 100.14) fails.
import { describe, expect, it, vi } from 'vitest';

vi.mock('../../src/shared/simulation.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/shared/simulation.js')>()),
  REJECT_DOCUMENT_SUFFIX: '4242',
  FAIL_ENDING: 17,
  HOLD_ENDING: 19,
}));

const { rulesText } = await import('../../src/shared/rules.js');
const { kyc } = await import('../../src/commands/kyc/index.js');
const { RECIPES } = await import('../../src/commands/trigger/recipes.js');

describe('texts naming simulation values follow src/shared/simulation.ts', () => {
  it('pay help rules: the rejecting document suffix', () => {
    expect(rulesText()).toContain('a document number ending in 4242 is rejected');
    expect(rulesText()).not.toContain('0000');
  });

  it('the kyc group: the rejecting document suffix', () => {
    expect(kyc.description).toContain('ending in 4242 is rejected');
    expect(kyc.description).not.toContain('0000');
  });

  it('pay trigger --list: the failing and held amounts, the rejected document', () => {
    expect(RECIPES['transfer.failed'].creates).toContain('a transfer of 25.17 (fails');
    expect(RECIPES['collection.failed'].creates).toContain('a collection of 25.17 (fails');
    expect(RECIPES['transfer.cancelled'].creates).toContain('a transfer of 100.19 (held pending)');
    expect(RECIPES['kyc.rejected'].creates).toContain('numbered …4242 (rejected)');
    const all = Object.values(RECIPES)
      .map((r) => r.creates)
      .join('\n');
    for (const real of ['25.13', '25.14', '100.14', '0000']) expect(all).not.toContain(real);
  });
});
