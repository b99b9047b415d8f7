// Any value as plain text, for messages and cells built from values typed `unknown` (flag values,
// answers from the service): strings as they are, numbers and booleans as String() writes them,
// null and undefined as '', objects and arrays as their JSON, never "[object Object]". Escaping
// for the terminal is escape.ts's job, after this.
export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value) ?? '';
  if (typeof value === 'function') return '[function]';
  if (typeof value === 'symbol') return value.toString();
  return (value as number | boolean | bigint).toString();
}
