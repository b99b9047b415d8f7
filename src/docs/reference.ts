// The command reference, generated from the commander tree: src/docs/generated/commands.md of the package
// (src/scripts/generate.mjs writes it; test/unit/topics.test.ts fails when it drifts).
import type { Command } from 'commander';

/** A command's subcommands as its help lists them (`help` only at the root). */
export function visible(cmd: Command): Command[] {
  return cmd
    .createHelp()
    .visibleCommands(cmd)
    .filter((c) => c.name() !== 'help' || cmd.parent === null);
}

/** `pay group verb <arg> [opt]`: a command's usage line, its arguments as commander registered them. */
export function usage(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  const args = cmd.registeredArguments.map((a) =>
    a.required ? `<${a.name()}${a.variadic ? '...' : ''}>` : `[${a.name()}${a.variadic ? '...' : ''}]`,
  );
  return [...names, ...args].join(' ');
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
}

export function commandReference(program: Command): string {
  const out: string[] = [];
  for (const group of visible(program)) {
    const verbs = visible(group);
    out.push(`### \`pay ${group.name()}\``, '', cell(group.summary() || group.description()), '');
    if (verbs.length === 0) {
      out.push(`\`${usage(group)}\``, '');
      continue;
    }
    out.push('| command | what it does |', '|---|---|');
    for (const verb of verbs) {
      const nested = visible(verb);
      if (nested.length === 0) out.push(`| \`${usage(verb)}\` | ${cell(verb.summary() || verb.description())} |`);
      for (const n of nested) out.push(`| \`${usage(n)}\` | ${cell(n.summary() || n.description())} |`);
    }
    out.push('');
  }
  return out.join('\n');
}
