// Exact money: decimal strings in, BigInt minor units inside, decimal strings out. No floats.
// The conversions themselves are the shared ones (src/shared/money.ts).
import { currencyExponent } from '../shared/iso.js';
import { fromMinor, toMinor } from '../shared/money.js';

export { fromMinor, toMinor };

export const DECIMAL_RE = /^(0|[1-9][0-9]{0,14})(\.[0-9]{1,18})?$/;

/** The exponent of a supported currency or asset (throws for an unknown code: callers validate first). */
export function exponent(code: string): number {
  const e = currencyExponent(code);
  if (e === undefined) throw new Error(`unknown currency ${code}`);
  return e;
}

/** Decimal places written in a decimal string. */
export function decimals(s: string): number {
  const dot = s.indexOf('.');
  return dot < 0 ? 0 : s.length - dot - 1;
}

/** Canonical form of a valid amount for a currency ("10.5" → "10.50"). */
export const canonical = (s: string, code: string): string => fromMinor(toMinor(s, exponent(code)), exponent(code));

/** Digits before the decimal point an amount may have (the contract's Amount pattern). */
export const MAX_WHOLE_DIGITS = 15;

/** Whether minor units at an exponent write as an amount the contract allows (at most 15 digits before the point). */
export const fits = (minor: bigint, exp: number): boolean => (minor < 0n ? -minor : minor) < 10n ** BigInt(MAX_WHOLE_DIGITS + exp);

/** Integer division rounding up (both positive). */
export const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;
