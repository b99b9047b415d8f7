// pay help [topic | command…]: the topics `environment`, `exit-codes`, `rules` and `simulate`, or a command's help.
import type { Command } from 'commander';
import type { CommandContext } from '../../cmdutil/decl.js';
import type { Factory } from '../../cmdutil/factory.js';
import { pagerCommand } from '../../io/output-options.js';
import { page } from '../../io/pager.js';
import { closeNames, didYouMean } from '../../lib/distance.js';
import { UsageError } from '../../lib/errors.js';
import { environmentText, exitCodesText } from '../../lib/reference.js';
import { simulationText } from '../../shared/simulation.js';
import { rulesText } from '../../shared/rules.js';

const TOPICS = ['environment', 'exit-codes', 'rules', 'simulate'] as const;

export async function run(f: Factory, ctx: CommandContext): Promise<void> {
  const topicWords = ctx.args[0];
  const words = Array.isArray(topicWords) ? topicWords : topicWords ? [topicWords] : [];
  const { io } = f;
  const { command } = ctx;
  const topic = words.join(' ');
  // A topic longer than the terminal goes through the pager (on a terminal only; src/io/pager.ts).
  const show = (text: string) => page(io, text, pagerCommand({ flags: f.flags, env: f.env }), io.terminalRows);
  if (topic === 'environment') return show(`Environment variables:\n\n${environmentText()}`);
  if (topic === 'exit-codes') return show(`Exit codes:\n\n${exitCodesText()}`);
  if (topic === 'rules') return show(`Business rules:\n\n${rulesText()}`);
  if (topic === 'simulate') return show(simulationText());
  let target: Command = command.parent!;
  for (const [i, word] of words.entries()) {
    const next = target.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) {
      // A close topic or command where the word was typed (a prefix, or one or two letters off).
      const names = [
        ...(i === 0 ? TOPICS : []),
        ...target
          .createHelp()
          .visibleCommands(target)
          .flatMap((c) => [c.name(), ...c.aliases()]),
      ];
      const guess = didYouMean(closeNames(word, names));
      throw new UsageError(`unknown help topic or command "${topic}"`, {
        hint: `${guess ? `${guess} ` : ''}topics: ${TOPICS.join(', ')}; or a command such as: pay help customers create`,
      });
    }
    target = next;
  }
  // outputHelp, not helpInformation: the examples and the output note are added after the help
  // text (addHelpText), and `pay help <command>` shows what `pay <command> --help` shows.
  target.configureOutput({ writeOut: (text) => io.out(text) });
  target.outputHelp();
}
