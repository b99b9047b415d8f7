// The shapes of the OpenAPI 3.1 document, as far as pay's code reads them. Schemas stay loose
// (JSON Schema 2020-12 objects); the operation and parameter shapes are typed so the command
// tree, the emulator and the tests can walk the document without casts.

/** A JSON Schema 2020-12 object (OpenAPI 3.1 schema object). */
export type Schema = { readonly [keyword: string]: unknown };

export type Ref = {
  readonly $ref: string;
  readonly description?: string;
};

export interface ParameterObject {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly description: string;
  readonly required?: boolean;
  readonly schema: Schema;
  readonly style?: 'form' | 'simple';
  readonly explode?: boolean;
  readonly example?: unknown;
}

export interface HeaderObject {
  readonly description: string;
  readonly required?: boolean;
  readonly schema: Schema;
}

export interface MediaTypeObject {
  readonly schema: Schema | Ref;
  readonly example?: unknown;
  readonly examples?: Readonly<Record<string, { readonly summary: string; readonly value: unknown }>>;
}

export interface RequestBodyObject {
  readonly description: string;
  readonly required: boolean;
  readonly content: Readonly<Record<string, MediaTypeObject>>;
}

export interface ResponseObject {
  readonly description: string;
  readonly headers?: Readonly<Record<string, HeaderObject | Ref>>;
  readonly content?: Readonly<Record<string, MediaTypeObject>>;
}

export interface OperationObject {
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly deprecated?: boolean;
  readonly parameters?: ReadonlyArray<ParameterObject | Ref>;
  readonly requestBody?: RequestBodyObject;
  readonly responses: Readonly<Record<string, ResponseObject | Ref>>;
  readonly security?: ReadonlyArray<Readonly<Record<string, readonly string[]>>>;
}

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

export type PathItemObject = { readonly [M in HttpMethod]?: OperationObject };

export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: Readonly<Record<string, unknown>>;
  readonly servers: ReadonlyArray<Readonly<Record<string, unknown>>>;
  readonly security: ReadonlyArray<Readonly<Record<string, readonly string[]>>>;
  readonly tags: ReadonlyArray<{ readonly name: string; readonly description: string }>;
  readonly paths: Readonly<Record<string, PathItemObject>>;
  readonly webhooks: Readonly<Record<string, PathItemObject>>;
  readonly components: {
    readonly securitySchemes: Readonly<Record<string, unknown>>;
    readonly schemas: Readonly<Record<string, Schema>>;
    readonly parameters: Readonly<Record<string, ParameterObject>>;
    readonly headers: Readonly<Record<string, HeaderObject>>;
    readonly responses: Readonly<Record<string, ResponseObject>>;
  };
}
