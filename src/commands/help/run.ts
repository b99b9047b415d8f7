// pay help [topic | command…]: a topic of the reference (src/docs/topics/*.md, wrapped to the
// terminal's width), or a command's help; `pay help` alone is the root's help and the topic list.
import type { Command } from 'commander';
import type { CommandContext } from '../../cmdutil/decl.js';
import type { Factory } from '../../cmdutil/factory.js';
import { isTopic, TOPIC_NAMES, topicList, topicText } from '../../docs/topics.js';
import { pagerCommand } from '../../io/output-options.js';
import { page } from '../../io/pager.js';
import { closeNames, didYouMean } from '../../lib/distance.js';
import { UsageError } from '../../lib/errors.js';

/**
 * What `pay help <topic>` prints, for a terminal `width` columns wide: the one place the text is
 * made, so a pager can be handed it as it is.
 */
export function helpTopic(topic: string, width: number): string | undefined {
  return isTopic(topic) ? topicText(topic, width) : undefined;
}

export async function run(f: Factory, ctx: CommandContext): Promise<void> {
  const topicWords = ctx.args[0];
  const words = Array.isArray(topicWords) ? topicWords : topicWords ? [topicWords] : [];
  const { io } = f;
  const { command } = ctx;
  const topic = words.join(' ');
  const text = helpTopic(topic, io.terminalWidth);
  // A topic longer than the terminal goes through the pager (on a terminal only; src/io/pager.ts).
  if (text !== undefined) return page(io, text, pagerCommand({ flags: f.flags, env: f.env }), io.terminalRows);
  let target: Command = command.parent!;
  for (const [i, word] of words.entries()) {
    const next = target.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) {
      // A close topic or command where the word was typed (a prefix, or one or two letters off).
      const names = [
        ...(i === 0 ? TOPIC_NAMES : []),
        ...target
          .createHelp()
          .visibleCommands(target)
          .flatMap((c) => [c.name(), ...c.aliases()]),
      ];
      const guess = didYouMean(closeNames(word, names));
      throw new UsageError(`unknown help topic or command "${topic}"`, {
        hint: `${guess ? `${guess} ` : ''}topics: ${TOPIC_NAMES.join(', ')}; or a command such as: pay help customers create`,
      });
    }
    target = next;
  }
  // outputHelp, not helpInformation: the examples and the output note are added after the help
  // text (addHelpText), and `pay help <command>` shows what `pay <command> --help` shows.
  target.configureOutput({ writeOut: (t) => io.out(t) });
  target.outputHelp();
  if (words.length === 0) io.out(`\n${topicList(io.terminalWidth)}`);
}
