// Small builders for the repeated parts of the contract's schemas: references, nullable values,
// ids, timestamps, resource objects with their standard fields, request bodies, list envelopes.
import { FREE_TEXT_PATTERN } from '../../shared/patterns.js';
import type { Ref, Schema } from './types.js';

export const schemaRef = (name: string, description?: string): Ref =>
  description ? { $ref: `#/components/schemas/${name}`, description } : { $ref: `#/components/schemas/${name}` };

/** The value or JSON null (`type: [t, "null"]` for simple types, `anyOf` around a reference). */
export function nullable(schema: Schema | Ref, description?: string): Schema {
  const desc = description ? { description } : {};
  if ('$ref' in schema || typeof schema.type !== 'string') return { anyOf: [schema, { type: 'null' }], ...desc };
  const widened: Record<string, unknown> = { ...schema, type: [schema.type, 'null'], ...desc };
  if (Array.isArray(schema.enum)) widened.enum = [...(schema.enum as unknown[]), null];
  return widened;
}

/** Free text: not empty, bounded, no control characters (the service refuses them). */
export const text = (description: string, maxLength = 200): Schema => ({
  type: 'string',
  minLength: 1,
  maxLength,
  pattern: FREE_TEXT_PATTERN,
  description,
});

export const enumOf = (values: readonly string[], description: string): Schema => ({ type: 'string', enum: [...values], description });

export const timestamp = (description: string): Schema => ({ type: 'string', format: 'date-time', description });

export const ID_SUFFIX_EXAMPLE = '0123456789abcdefghijklmn';
/** The same, under the name the tests read. */
export const EXAMPLE_SUFFIX = ID_SUFFIX_EXAMPLE;

/** An id of one type: the prefix and 24 characters of [0-9a-z]. */
export const idOf = (prefix: string, description: string): Schema => ({
  type: 'string',
  pattern: `^${prefix}[0-9a-z]{24}$`,
  description,
  examples: [`${prefix}${ID_SUFFIX_EXAMPLE}`],
});

export const exampleId = (prefix: string): string => `${prefix}${ID_SUFFIX_EXAMPLE}`;

/** An object schema; `closed` forbids unknown properties (request bodies: an unknown field is a 422). */
export function objectOf(
  properties: Record<string, Schema | Ref>,
  required: readonly string[],
  extra: { description?: string; closed?: boolean } & Record<string, unknown> = {},
): Schema {
  const { closed, ...rest } = extra;
  return {
    type: 'object',
    ...rest,
    properties,
    ...(required.length > 0 ? { required: [...required] } : {}),
    ...(closed ? { additionalProperties: false } : {}),
  };
}

/** A request body: closed (unknown fields are a 422 `validation_error`). */
export const requestBody = (
  description: string,
  properties: Record<string, Schema | Ref>,
  required: readonly string[],
  extra: Record<string, unknown> = {},
): Schema => objectOf(properties, required, { description, closed: true, ...extra });

export interface ResourceOptions {
  /** Its `object` value (`customer`). */
  object: string;
  /** Id prefix (`cus_`). */
  prefix: string;
  description: string;
  properties: Record<string, Schema | Ref>;
  /** Required besides the standard fields. */
  required: readonly string[];
  /** Can change after creation: carries `updated_at` (default true). */
  mutable?: boolean;
}

/** A stored resource: `id`, `object`, `livemode`, `created_at` (and `updated_at`), then its own fields. */
export function resource(o: ResourceOptions): Schema {
  const mutable = o.mutable ?? true;
  const standard: Record<string, Schema> = {
    id: idOf(o.prefix, `Unique id: \`${o.prefix}\` then 24 characters of [0-9a-z].`),
    object: { type: 'string', const: o.object, description: `Always \`${o.object}\`.` },
    livemode: { type: 'boolean', description: 'true for Live data, false for Sandbox data (the API key decides the mode).' },
    created_at: timestamp('When it was created (RFC 3339, UTC, millisecond precision).'),
    ...(mutable ? { updated_at: timestamp('When it last changed (RFC 3339, UTC, millisecond precision).') } : {}),
  };
  const required = ['id', 'object', 'livemode', 'created_at', ...(mutable ? ['updated_at'] : []), ...o.required];
  return objectOf({ ...standard, ...o.properties }, required, { description: o.description });
}

/** A read-only view that is not stored (no id): `object` plus its own fields. */
export function view(object: string, description: string, properties: Record<string, Schema | Ref>, required: readonly string[]): Schema {
  return objectOf(
    { object: { type: 'string', const: object, description: `Always \`${object}\`.` }, ...properties },
    ['object', ...required],
    { description },
  );
}

/** The list envelope of every list operation. */
export function listOf(itemSchema: string, noun: string): Schema {
  return objectOf(
    {
      object: { type: 'string', const: 'list', description: 'Always `list`.' },
      data: {
        type: 'array',
        items: schemaRef(itemSchema),
        description: `This page of ${noun}, newest first (created_at desc, then id desc).`,
      },
      has_more: {
        type: 'boolean',
        description:
          'true when another page follows (then `next_cursor` is a string). A page may be empty and still say true: follow its cursor.',
      },
      next_cursor: nullable(
        { type: 'string', minLength: 1 },
        'Pass as `cursor` to get the next page: a string whenever `has_more` is true, never one given before; null on the last page.',
      ),
    },
    ['object', 'data', 'has_more', 'next_cursor'],
    {
      description: `A page of ${noun}.`,
      // has_more: true without a cursor to follow would leave the rest of the list unreachable.
      if: { properties: { has_more: { const: true } }, required: ['has_more'] },
      then: { properties: { next_cursor: { type: 'string', minLength: 1 } }, required: ['next_cursor'], additionalProperties: true },
    },
  );
}
