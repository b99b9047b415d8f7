// Dotted paths (`address.country`, `balance.available`) for --fields.

// Split dotted paths, by path: bulk creates look up each flag's field per row.
const splitPaths = new Map<string, string[]>();

function partsOf(path: string): string[] {
  let parts = splitPaths.get(path);
  if (parts === undefined) {
    parts = path.split('.');
    if (splitPaths.size >= 1000) splitPaths.clear();
    splitPaths.set(path, parts);
  }
  return parts;
}

export function getPath(obj: unknown, path: string): unknown {
  // Most paths have no dot: skip the split.
  if (!path.includes('.')) return obj === null || typeof obj !== 'object' ? undefined : (obj as Record<string, unknown>)[path];
  let cur: unknown = obj;
  for (const part of partsOf(path)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** Keeps only the given dotted paths, preserving nesting: pick({a:{b:1,c:2}}, ['a.b']) → {a:{b:1}}. */
export function pickPaths(obj: unknown, paths: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const path of paths) {
    const value = getPath(obj, path);
    if (value === undefined) continue;
    const parts = path.split('.');
    let target = out;
    for (const part of parts.slice(0, -1)) {
      const next = target[part];
      if (next === null || typeof next !== 'object') target[part] = {};
      target = target[part] as Record<string, unknown>;
    }
    target[parts[parts.length - 1]!] = value;
  }
  return out;
}

export function parseFieldList(value: string): string[] {
  const fields = value
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  for (const f of fields) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(f)) {
      throw new Error(`invalid field name "${f}" (use names like id or address.country)`);
    }
  }
  return fields;
}
