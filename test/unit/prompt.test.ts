// The prompter over plain streams (readline in terminal mode on a PassThrough): what the data
// puts in a prompt (message, default, choices) is drawn escaped, never as a sequence, while the
// answer is the data itself; Ctrl-D (byte 0x04) and the end of input cancel with CancelledError.
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { bufferIOStreams, type IOStreams } from '../../src/io/iostreams.js';
import { createPrompter } from '../../src/io/prompt.js';
import { CancelledError } from '../../src/lib/errors.js';
import { until } from '../helpers/wait.js';

const OSC = '\x1b]0;pwned\x07';

function streams(): { io: IOStreams; input: PassThrough; drawn: () => string } {
  const input = new PassThrough();
  let drawn = '';
  const stderr = new Writable({ write: (c, _e, cb) => ((drawn += String(c)), cb()) });
  const io = { ...bufferIOStreams({ tty: true }), stdin: input, stderr };
  return { io, input, drawn: () => drawn };
}

/** Waits until the prompt has drawn `text`. */
async function drawnText(drawn: () => string, text: string): Promise<void> {
  await until(`the prompt to draw ${JSON.stringify(text)}`, () => drawn().includes(text), { seen: () => JSON.stringify(drawn()) });
}

describe('prompter', () => {
  it('a default from the data is drawn escaped; Enter answers with the data itself', async () => {
    const { io, input, drawn } = streams();
    const answer = createPrompter(io).text(`Tenant ${OSC}`, { default: `biz${OSC}` });
    await drawnText(drawn, '(biz\\x1b]0;pwned\\x07)');
    expect(drawn()).toContain('Tenant \\x1b]0;pwned\\x07');
    input.write('\r');
    await expect(answer).resolves.toBe(`biz${OSC}`.trim());
    expect(drawn()).not.toContain(OSC);
    expect(drawn()).not.toMatch(/\x1b\]/);
  });

  it('choices from the data are drawn escaped; the chosen value is the data itself', async () => {
    const { io, input, drawn } = streams();
    const answer = createPrompter(io).choose('Pick', [`a${OSC}`, 'b\u202ec']);
    await drawnText(drawn, 'b\\u202ec');
    expect(drawn()).toContain('a\\x1b]0;pwned\\x07');
    input.write('\r');
    await expect(answer).resolves.toBe(`a${OSC}`);
    expect(drawn()).not.toMatch(/\x1b\]|\u202e/);
  });

  it.each([
    ['text', (p: ReturnType<typeof createPrompter>) => p.text('Name')],
    ['secret', (p: ReturnType<typeof createPrompter>) => p.secret('Key')],
    ['choose', (p: ReturnType<typeof createPrompter>) => p.choose('Pick', ['a', 'b'])],
    ['confirm', (p: ReturnType<typeof createPrompter>) => p.confirm('Sure?')],
  ])('Ctrl-D at a %s prompt cancels (also after typing), and so does the end of input', async (_kind, ask) => {
    for (const [typed, end] of [
      ['', '\x04'],
      ['ab', '\x04'],
      ['', null],
    ] as const) {
      const { io, input, drawn } = streams();
      const answer = ask(createPrompter(io));
      await drawnText(drawn, '?');
      if (typed) input.write(typed);
      if (end) input.write(end);
      else input.end();
      await expect(answer).rejects.toBeInstanceOf(CancelledError);
    }
  });
});
