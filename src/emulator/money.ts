// Exact money: decimal strings in, BigInt minor units inside, decimal strings out. No floats.
import { currencyExponent } from '../shared/iso.js';

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

/** Canonical form of a valid amount for a currency ("10.5" → "10.50"). */
export const canonical = (s: string, code: string): string => fromMinor(toMinor(s, exponent(code)), exponent(code));

/** Digits before the decimal point an amount may have (the contract's Amount pattern). */
export const MAX_WHOLE_DIGITS = 15;

/** Whether minor units at an exponent write as an amount the contract allows (at most 15 digits before the point). */
export const fits = (minor: bigint, exp: number): boolean => (minor < 0n ? -minor : minor) < 10n ** BigInt(MAX_WHOLE_DIGITS + exp);

/** Integer division rounding up (both positive). */
export const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;
