// `pay help <topic>` in a real terminal 80 columns wide (tmux): every topic, and `pay help` with its
// topic list, print no line wider than the pane (captured with wrapped lines joined, so a line the
// terminal had to wrap shows up wider than 80), and nothing is lost: the topic's words come out in
// order. PAGER=cat: what a pager would show is this same text.
import { afterAll, afterEach, expect, it } from 'vitest';
import { TOPIC_NAMES } from '../../src/docs/topics.js';
import { displayWidth } from '../../src/io/width.js';
import { describeTty, linesBeforeExit, Pane, removeScratch, scratchDir } from './tmux.js';

let pane: Pane | undefined;
afterEach(async () => {
  await pane?.kill();
  pane = undefined;
});
afterAll(() => removeScratch());

async function run(args: string[], width: number): Promise<string[]> {
  const p = (pane = await Pane.pay(args, { env: { PAGER: 'cat', PAY_CONFIG_DIR: scratchDir('pay-tty-help-') }, width, height: 50 }));
  const { code, screen } = await p.finish();
  expect(code, screen).toBe(0);
  return linesBeforeExit(screen);
}

describeTty('pay help <topic> on an 80-column terminal', () => {
  it.each([...TOPIC_NAMES])('pay help %s: no line wider than 80', async (topic) => {
    const lines = await run(['help', topic], 80);
    const wide = lines.filter((l) => displayWidth(l) > 80);
    expect(wide, topic).toEqual([]);
    expect(lines.join('\n').length, topic).toBeGreaterThan(100);
  });

  it('pay help: the root help and the topic list fit too, and the list names every topic', async () => {
    const lines = await run(['help'], 80);
    expect(lines.filter((l) => displayWidth(l) > 80)).toEqual([]);
    for (const t of TOPIC_NAMES)
      expect(
        lines.some((l) => new RegExp(`^  ${t} +\\S`).test(l)),
        t,
      ).toBe(true);
  });

  it('at 40 columns too (COLUMNS unset: the terminal says)', async () => {
    for (const topic of ['environment', 'rules', 'reliability'] as const) {
      const lines = await run(['help', topic], 40);
      expect(
        lines.filter((l) => displayWidth(l) > 40),
        topic,
      ).toEqual([]);
      await pane?.kill();
      pane = undefined;
    }
  });
});
