// --dry-run: what the client hands over instead of sending a request that would change something
// (src/api/client.ts, ClientOptions.dryRun), printed on stdout: the method and URL, the headers
// (the key masked), a blank line and the JSON body, as text; or, with --json / -o ndjson / --jq,
// {method, url, headers, body} through the shared Printer. Several requests (a bulk file) are
// printed one after the other: text blocks apart by a blank line, JSON values one after another.
// Loaded by the dispatcher only when --dry-run is given.
import type { OutgoingRequest } from '../api/client.js';
import { escapeMultiline, escapeText } from '../io/escape.js';
import type { IOStreams } from '../io/iostreams.js';
import { Printer } from '../io/output.js';
import type { OutputSettings } from '../io/output-options.js';

export function dryRunPrinter(io: IOStreams, output: OutputSettings | undefined): (req: OutgoingRequest) => void {
  const json = output !== undefined && (output.format === 'json' || output.format === 'ndjson');
  const printer = json ? new Printer(io, { ...output, fields: undefined }, []) : undefined;
  let n = 0;
  return (req) => {
    if (printer) {
      printer.printValue(req);
      return;
    }
    let text = n++ === 0 ? '' : '\n';
    text += `${req.method} ${escapeText(req.url)}\n`;
    for (const [k, v] of Object.entries(req.headers)) text += `${escapeText(k)}: ${escapeText(v)}\n`;
    // The body comes from flags and files: exact JSON, but a terminal sees no control or bidi character of it.
    if (req.body !== undefined) {
      const body = JSON.stringify(req.body, null, 2);
      text += `\n${io.stdoutIsTTY ? escapeMultiline(body) : body}\n`;
    }
    io.out(text);
  };
}
