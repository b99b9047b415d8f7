// fast-check arbitraries drawn from the JSON Schemas of a printed contract: values a schema
// accepts (`validOf`) and values it refuses (`invalidOf`). Both are drafts that the conformance
// test checks with ajv before sending (a draft the schema does not judge as intended is dropped),
// so they follow the keywords the contract uses (type, enum, const, pattern, format, lengths,
// bounds, properties, required, additionalProperties, items, anyOf/oneOf/allOf, not, if/then,
// $ref) without having to be exact about their combinations.
import fc from 'fast-check';
import type { OpenApiDocument } from '../../src/api/contract/types.js';

export type JsonSchema = Record<string, unknown> | boolean;
type Obj = Record<string, unknown>;

/** Object ids a generated id may be drawn from, by prefix (`cus_` → ids the run created). */
export type IdPool = ReadonlyMap<string, readonly string[]>;

/**
 * Some arbitraries are costly to build (a `binary` string builds its table of all of Unicode,
 * about 100 ms; a pattern's is parsed and compiled): built once and shared.
 */
const BINARY = fc.string({ maxLength: 12, unit: 'binary' });
const MATCHING = new Map<string, fc.Arbitrary<string>>();

export class SchemaArbitraries {
  /** Strings matching a pattern (one arbitrary per pattern). */
  private matching(pattern: string): fc.Arbitrary<string> {
    let arb = MATCHING.get(pattern);
    if (!arb) MATCHING.set(pattern, (arb = fc.stringMatching(new RegExp(pattern, 'u'))));
    return arb;
  }

  constructor(
    private readonly doc: OpenApiDocument,
    private readonly ids: IdPool = new Map(),
  ) {}

  /** Follows `$ref`s (local ones) to the schema they name; keeps the sibling keywords. */
  deref(schema: JsonSchema): JsonSchema {
    let s = schema;
    for (let i = 0; typeof s === 'object' && typeof s.$ref === 'string' && i < 20; i++) {
      const { $ref, ...rest } = s;
      let node: unknown = this.doc;
      for (const part of $ref.replace(/^#\//, '').split('/')) node = (node as Obj)[part];
      s = Object.keys(rest).some((k) => k !== 'description') ? { ...(node as Obj), ...rest } : (node as JsonSchema);
    }
    return s;
  }

  /** Values the schema accepts (mostly: the caller filters with the validator). */
  validOf(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
    const s = this.deref(schema);
    if (s === true) return fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean());
    if (s === false) return fc.constant(undefined);
    if ('const' in s) return fc.constant(s.const);
    if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
    if (Array.isArray(s.anyOf)) return fc.oneof(...(s.anyOf as JsonSchema[]).map((b) => this.validOf(b, depth)));
    if (Array.isArray(s.oneOf) && s.type === undefined) return fc.oneof(...(s.oneOf as JsonSchema[]).map((b) => this.validOf(b, depth)));
    if (Array.isArray(s.allOf) && s.type === undefined && s.properties === undefined) {
      // An allOf of schemas with properties (EventWithAttempts): the merged properties.
      const merged = (s.allOf as JsonSchema[])
        .map((b) => this.deref(b))
        .reduce<Obj>(
          (acc, b) =>
            typeof b === 'object'
              ? {
                  ...acc,
                  ...b,
                  properties: { ...(acc.properties as Obj), ...(b.properties as Obj) },
                  required: [...((acc.required as string[]) ?? []), ...((b.required as string[]) ?? [])],
                }
              : acc,
          {},
        );
      return this.validOf(merged, depth);
    }
    const type = s.type;
    if (Array.isArray(type)) return fc.oneof(...type.map((t) => this.validOf({ ...s, type: t }, depth)));
    switch (type) {
      case 'string':
        return this.validString(s);
      case 'integer':
        return fc.integer({ min: (s.minimum as number) ?? -1000, max: (s.maximum as number) ?? 1_000_000 });
      case 'number':
        return fc.double({ min: (s.minimum as number) ?? -1e6, max: (s.maximum as number) ?? 1e6, noNaN: true });
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array': {
        if (depth > 4) return fc.constant([]);
        const items = s.items === undefined ? true : (s.items as JsonSchema);
        return fc.array(this.validOf(items, depth + 1), {
          minLength: (s.minItems as number) ?? 0,
          maxLength: Math.min((s.maxItems as number) ?? 3, 3),
        });
      }
      case 'object':
      default:
        return this.validObject(s, depth);
    }
  }

  private validObject(s: Obj, depth: number): fc.Arbitrary<unknown> {
    const props = (s.properties ?? {}) as Record<string, JsonSchema>;
    const required = (s.required as string[] | undefined) ?? [];
    if (depth > 4) return fc.constant({});
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, p] of Object.entries(props)) model[name] = this.validOf(p, depth + 1);
    for (const name of required) model[name] ??= this.validOf(true);
    // Optional properties show up about half the time each; required ones always.
    return fc.record(model, { requiredKeys: required.filter((r) => r in model) });
  }

  private validString(s: Obj): fc.Arbitrary<string> {
    const min = (s.minLength as number) ?? 0;
    const max = Math.min((s.maxLength as number) ?? 40, 300);
    if (typeof s.pattern === 'string' && /^\^\[\^[^\]]*\]\*\$$/.test(s.pattern)) {
      // A negated class (free text: no control characters): strings of the right length, most of
      // them printable ASCII, some from all of Unicode, kept when they match.
      const re = new RegExp(s.pattern, 'u');
      return fc
        .oneof(
          { weight: 4, arbitrary: fc.string({ minLength: min, maxLength: max, unit: 'grapheme-ascii' }) },
          { weight: 1, arbitrary: fc.string({ minLength: min, maxLength: max, unit: 'grapheme' }) },
        )
        .filter((v) => re.test(v));
    }
    if (typeof s.pattern === 'string') {
      const prefix = /^\^([a-z]+_)\[0-9a-z\]\{24\}\$$/.exec(s.pattern)?.[1];
      const pool = prefix ? this.ids.get(prefix) : undefined;
      const matching = this.matching(s.pattern).filter((v) => v.length >= min && v.length <= ((s.maxLength as number) ?? Infinity));
      // An id pattern: mostly the ids of objects that exist (else nearly every request is a 404).
      return pool && pool.length > 0
        ? fc.oneof({ arbitrary: fc.constantFrom(...pool), weight: 3 }, { arbitrary: matching, weight: 1 })
        : matching;
    }
    switch (s.format) {
      case 'date-time':
        return fc
          .date({ min: new Date('1800-01-01T00:00:00Z'), max: new Date('2199-12-31T23:59:59Z'), noInvalidDate: true })
          .map((d) => d.toISOString());
      case 'date':
        return fc
          .date({ min: new Date('1800-01-01T00:00:00Z'), max: new Date('2199-12-31T00:00:00Z'), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10));
      case 'email':
        return fc.emailAddress().filter((v) => v.length <= max);
      case 'uri':
        return fc.webUrl();
      default:
        return fc.oneof(
          { weight: 4, arbitrary: fc.string({ minLength: min, maxLength: max, unit: 'grapheme-ascii' }) },
          { weight: 1, arbitrary: fc.string({ minLength: min, maxLength: max, unit: 'grapheme' }) },
        );
    }
  }

  /**
   * Values of the wrong kind for the schema: another JSON type, a string outside its pattern,
   * enum, format or lengths, a number outside its bounds, an object missing a required property
   * or carrying an unknown one or an invalid property. Drafts: the caller keeps those the
   * validator refuses.
   */
  invalidOf(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
    const s = this.deref(schema);
    const others: fc.Arbitrary<unknown>[] = [fc.constantFrom<unknown>(null, true, 0, 1.5, -1, [], {}, '', 'x')];
    if (typeof s !== 'object') return others[0]!;
    const types = Array.isArray(s.type) ? s.type : [s.type ?? (s.properties ? 'object' : undefined)];
    if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) {
      for (const b of ((s.anyOf ?? s.oneOf) as JsonSchema[]).slice(0, 3)) others.push(this.invalidOf(b, depth + 1));
    }
    if (types.includes('string') || Array.isArray(s.enum)) others.push(this.invalidString(s));
    if (types.includes('integer') || types.includes('number')) {
      const lo = typeof s.minimum === 'number' ? s.minimum - 1 : -1e16;
      const hi = typeof s.maximum === 'number' ? s.maximum + 1 : 1e16;
      others.push(fc.constantFrom<unknown>(lo, hi, 2.5, '7'));
    }
    if (types.includes('object') && depth < 4) others.push(this.invalidObject(s, depth));
    if (types.includes('array') && depth < 4) {
      const items = (s.items ?? true) as JsonSchema;
      others.push(fc.array(this.invalidOf(items, depth + 1), { minLength: 1, maxLength: 2 }));
    }
    return fc.oneof(...others);
  }

  /** Strings the schema refuses (for query parameters and headers too, whose values are strings). */
  invalidString(schema: JsonSchema): fc.Arbitrary<string> {
    const s = this.deref(schema) as Obj;
    const out: fc.Arbitrary<string>[] = [
      fc.constantFrom('', ' ', 'x', 'A', '0', '-1', 'null', 'é', '\t', 'a\tb', 'a b', '%', '1800-13-01', '2026-02-30'),
      BINARY,
    ];
    const max = s.maxLength as number | undefined;
    if (max !== undefined) out.push(fc.string({ minLength: max + 1, maxLength: max + 4, unit: fc.constantFrom('a', '0', '_', 'Z') }));
    if (Array.isArray(s.enum)) {
      const values = (s.enum as unknown[]).filter((v): v is string => typeof v === 'string');
      out.push(fc.constantFrom(...values).map((v) => v.toLowerCase() + 'x'));
      out.push(fc.constantFrom(...values).map((v) => `${v},${v}`));
    }
    if (typeof s.pattern === 'string') {
      // Near misses: a matching value with one character changed, dropped or added.
      out.push(
        fc.tuple(this.matching(s.pattern), fc.nat(), fc.constantFrom('', '!', ' ', 'é', 'A', 'a', '0', ',', '\t')).map(([v, i, c]) => {
          const at = v.length === 0 ? 0 : i % v.length;
          return v.slice(0, at) + c + v.slice(at + (c === '' ? 1 : 0));
        }),
      );
    }
    if (s.format === 'date' || s.format === 'date-time') {
      out.push(
        fc.constantFrom(
          '1799-12-31',
          '0000-01-01',
          '1799-12-31T23:59:59Z',
          '2026-01-01 12:00:00Z',
          '2026-01-01T25:00:00Z',
          '2026-01-01T12:00:00+0100',
          '2026-13-01T00:00:00Z',
          '20260101',
        ),
      );
    }
    if (s.format === 'email')
      out.push(fc.constantFrom('ada', 'ada@', '@example.com', 'ada@localhost', 'a b@example.com', 'ada@@example.com'));
    return fc.oneof(...out);
  }

  private invalidObject(s: Obj, depth: number): fc.Arbitrary<unknown> {
    const props = (s.properties ?? {}) as Record<string, JsonSchema>;
    const required = (s.required as string[] | undefined) ?? [];
    const base = this.validObject(s, depth) as fc.Arbitrary<Obj>;
    const ways: fc.Arbitrary<unknown>[] = [
      // An unknown property.
      fc
        .tuple(base, fc.constantFrom('unknown', 'Type', 'id', '', ' ', '__proto__x'))
        .map(([o, k]) => ({ ...o, [k in props ? `${k}_x` : k]: 1 })),
    ];
    if (required.length > 0)
      ways.push(
        fc.tuple(base, fc.constantFrom(...required)).map(([o, k]) => {
          const { [k]: _dropped, ...rest } = o;
          return rest;
        }),
      );
    const names = Object.keys(props);
    if (names.length > 0) {
      ways.push(
        fc
          .constantFrom(...names)
          .chain((k) => fc.tuple(base, fc.constant(k), this.invalidOf(props[k]!, depth + 1)))
          .map(([o, k, v]) => ({ ...o, [k]: v })),
      );
    }
    return fc.oneof(...ways);
  }
}
