// The published OpenAPI 3.1 document: the single source of truth of the API `pay` speaks.
// The seed spec fixes POST /customers (its body) and GET /accounts (Api-Key, x-tenant-id); the rest
// is pay's own definition (see DESIGN.md beside this file). `pay openapi` prints openapiJson().
import { pathsFrom } from './contract/operations.js';
import { headers, parameters } from './contract/parameters.js';
import { bankingPaths } from './contract/paths-banking.js';
import { customerPaths } from './contract/paths-customers.js';
import { ledgerPaths } from './contract/paths-ledger.js';
import { responses } from './contract/responses.js';
import { bankingSchemas } from './contract/schemas-banking.js';
import { customerSchemas } from './contract/schemas-customers.js';
import { ledgerSchemas } from './contract/schemas-ledger.js';
import { sharedSchemas } from './contract/schemas-shared.js';
import type { OpenApiDocument } from './contract/types.js';
import { webhooks } from './contract/webhooks.js';

export type { OpenApiDocument, OperationObject, ParameterObject, Schema } from './contract/types.js';

/** The contract's version follows pay's package version. */
export const CONTRACT_VERSION = '0.1.0';

const TAGS: ReadonlyArray<readonly [string, string]> = [
  ['customers', 'Create and manage customer profiles (the body of `POST /customers` is fixed by the seed spec).'],
  ['kyc', 'Verify customer identity and submit KYC documents (current endpoints).'],
  ['kyc-legacy', 'The deprecated KYC endpoints: same data, old shape. Use `kyc` instead.'],
  ['features', 'Check feature eligibility and activate product features for customers.'],
  ['accounts', 'Internal accounts and their balances (`GET /accounts` with `x-tenant-id` is fixed by the seed spec).'],
  ['external-accounts', 'External bank accounts, destinations of outgoing transfers.'],
  ['transfers', 'Send funds internally and to external accounts.'],
  ['cards', 'Issue and manage virtual and physical cards.'],
  ['collections', 'Accept payments by card, bank transfer and mobile money.'],
  ['payment-links', 'Shareable crypto payment links.'],
  ['wallets', 'Crypto wallets for customers.'],
  ['fx', 'Exchange rates, quotes and currency trades.'],
  ['transactions', 'Transaction history (ledger postings) of accounts and wallets.'],
  ['webhooks', 'Webhook events: delivery history, details and resends.'],
];

const DESCRIPTION = `The REST API of the payments and banking service, as \`pay\` speaks it.

**What the seed spec fixes:** \`POST /customers\` with its exact body (first_name, last_name, middle_name, email, phone, type,
gender, date_of_birth, address {address_line1, city, country, postal_code, state}) and headers \`Api-Key\`, \`Content-Type\`,
\`Idempotency-Key\`; \`GET /accounts\` with \`Api-Key\` and \`x-tenant-id\`; the \`Api-Key\` header with 401 when missing or invalid;
an \`Idempotency-Key\` on every POST; the \`/v1/\` version segment.

**What pay defines** (everything else): the other operations, response bodies, which customer fields are required, RFC 9457
problem details with machine codes, cursor pagination (\`limit\`, \`cursor\`), idempotency per the IETF Idempotency-Key draft,
\`Request-Id\`, rate limiting (429 + \`Retry-After\`), state machines, Sandbox magic values and Standard Webhooks signatures.
The local emulator (\`pay emulator start\`) serves exactly this document.

Conventions: JSON with snake_case fields; ids are a type prefix and 24 characters of [0-9a-z]; money amounts are decimal
strings with a currency; timestamps are RFC 3339 UTC with milliseconds; lists are newest first.`;

export const openapi: OpenApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Payments and Banking API (as spoken by pay)',
    version: CONTRACT_VERSION,
    summary: 'Customers, KYC, accounts, transfers, cards, collections, crypto, FX, transactions and webhooks.',
    description: DESCRIPTION,
    license: { name: 'MIT', identifier: 'MIT' },
    contact: { name: 'The pay project', url: 'https://pay.dev/' },
  },
  // No `jsonSchemaDialect`: 3.1's default is already the OpenAPI dialect, and Prism 5 silently
  // skips body validation when the field is present (see DESIGN.md "Tool conventions").
  servers: [
    {
      url: 'https://{host}/v1',
      description:
        'The service, at `host` (default api.example.com). Its address is not in the seed spec: set your base URL (ending in /v1/) with `--base-url` or `PAY_BASE_URL`.',
      // No `description` on the variable: swagger-parser's OpenAPI 3.1 schema refuses it.
      variables: { host: { default: 'api.example.com' } },
    },
    { url: 'http://127.0.0.1:8787/v1', description: 'The local emulator (`pay emulator start`).' },
  ],
  security: [{ ApiKey: [] }],
  tags: TAGS.map(([name, description]) => ({ name, description })),
  paths: pathsFrom([...customerPaths, ...bankingPaths, ...ledgerPaths]),
  webhooks,
  components: {
    securitySchemes: {
      ApiKey: {
        type: 'apiKey',
        in: 'header',
        name: 'Api-Key',
        description:
          'The secret key of the mode (`sk_test_…` Sandbox, `sk_live_…` Live; 32 base62 characters after the prefix). The key decides the mode; ' +
          'Sandbox and Live data never mix. Missing or invalid → 401 `unauthorized`; a public key (`pk_…`) → 403 `forbidden`.',
      },
    },
    schemas: { ...sharedSchemas, ...customerSchemas, ...bankingSchemas, ...ledgerSchemas },
    parameters,
    headers,
    responses,
  },
};

/** The document as pretty JSON (what `pay openapi` prints). */
export function openapiJson(): string {
  return JSON.stringify(openapi, null, 2);
}

/**
 * The document as YAML (what `pay openapi --yaml` prints). Written with YAML 1.1's rules, so a
 * string a 1.1 reader would take for something else (`yes`, `on`, `2026-01-15`, `0123`) is quoted,
 * and 1.1 and 1.2 readers get the same document; no anchors or aliases (the examples share
 * objects), which some OpenAPI tools do not follow.
 */
export async function openapiYaml(): Promise<string> {
  const { stringify } = await import('yaml');
  return stringify(openapi, { version: '1.1', lineWidth: 0, aliasDuplicateObjects: false });
}
