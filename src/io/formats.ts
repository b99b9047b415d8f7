// The output formats (-o): a leaf without imports, so the command tree (start-up path) can list them.
export const OUTPUT_FORMATS = ['table', 'tsv', 'csv', 'json', 'ndjson'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
