// Decimal amounts and minor units, exactly: decimal strings in and out, BigInt minor units in
// between, never a float. One copy for the emulator (its ledger, src/emulator/money.ts), the
// Sandbox simulation values (simulation.ts) and `pay trigger` (the amounts it sends). A leaf: no
// imports. Callers check an amount's shape and the currency's exponent first.

/** "10.5" → 1050n at exponent 2. The string must fit the exponent (validated before). */
export function toMinor(s: string, exp: number): bigint {
  const neg = s.startsWith('-');
  const body = neg ? s.slice(1) : s;
  const [whole = '0', frac = ''] = body.split('.');
  if (frac.length > exp) throw new Error(`${s} has more than ${exp} decimals`);
  const v = BigInt(whole + frac.padEnd(exp, '0'));
  return neg ? -v : v;
}

/** 1050n at exponent 2 → "10.50"; negative values carry a minus sign. */
export function fromMinor(v: bigint, exp: number): string {
  const neg = v < 0n;
  const digits = (neg ? -v : v).toString().padStart(exp + 1, '0');
  const out = exp === 0 ? digits : `${digits.slice(0, -exp)}.${digits.slice(-exp)}`;
  return neg ? `-${out}` : out;
}
