// The fish script: `complete -c pay` lines whose conditions ask a helper for the command path
// (computed once per command line and cached), with descriptions from the summaries.
import type { CompletionModel, FlagModel } from './model.js';
import { GENERATED_NOTE, Groups, pathKey, valueKind } from './shared.js';

/** fish single-quoted string. */
function fq(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Paths as arguments inside a single-quoted condition: "cards issue" (paths are safe words). */
function pathArgs(paths: readonly string[]): string {
  return paths.map((p) => `"${p}"`).join(' ');
}

function optionArgs(f: FlagModel, fn: string): string {
  const parts: string[] = [];
  for (const n of f.names) {
    if (/^-[^-]$/.test(n)) parts.push(`-s ${n.slice(1)}`);
    else if (n.startsWith('--')) parts.push(`-l ${n.slice(2)}`);
    else parts.push(`-o ${n.slice(1)}`);
  }
  const k = valueKind(f);
  if (k === 'c') parts.push('-x', '-a', fq(f.choices!.join(' ')));
  else if (k === 'p') parts.push('-x', '-a', fq(`(${fn}_profiles)`));
  else if (k === 's') parts.push('-x', '-a', fq(`(${fn}_states)`));
  else if (k === 'a') parts.push('-x');
  if (f.description) parts.push('-d', fq(f.description.replace(/\s+/g, ' ')));
  return parts.join(' ');
}

export function fishScript(model: CompletionModel): string {
  const prog = model.program;
  const id = prog.replace(/[^A-Za-z0-9_]/g, '_');
  const fn = `__${id}`;
  const out: string[] = [];
  const line = (s = '') => out.push(s);
  const opt = (f: FlagModel) => optionArgs(f, fn);

  line(`# fish completion for ${prog}.`);
  for (const n of GENERATED_NOTE) line(`# ${n}`);
  line('#');
  line(`# Install: ${prog} completion fish > ~/.config/fish/completions/${prog}.fish`);
  line();

  line(`# ${fn}_sub PATH WORD: prints the subcommand WORD names at PATH.`);
  line(`function ${fn}_sub`);
  line('    switch "$argv[1]|$argv[2]"');
  for (const c of model.commands) {
    for (const s of c.subcommands) {
      line(`        case ${[s.name, ...s.aliases].map((w) => fq(`${pathKey(c.path)}|${w}`)).join(' ')}`);
      line(`            echo ${s.name}`);
    }
  }
  line('    end');
  line('end');
  line();

  const values = new Groups<null>();
  for (const c of model.commands)
    for (const f of c.flags) if (valueKind(f)) for (const n of f.names) values.add('', null, fq(`${pathKey(c.path)}|${n}`));
  for (const f of model.globalFlags) if (valueKind(f)) for (const n of f.names) values.add('', null, `${fq('*|')}${n}`);
  line(`# ${fn}_takes_value PATH FLAG: whether FLAG takes a value (the next word) at PATH.`);
  line(`function ${fn}_takes_value`);
  line('    switch "$argv[1]|$argv[2]"');
  for (const g of values) {
    // fish switch: one case line may list many patterns.
    const items = [...g.items];
    while (items.length) line(`        case ${items.splice(0, 8).join(' ')}\n            return 0`);
  }
  line('    end');
  line('    return 1');
  line('end');
  line();

  line(`# ${fn}_state: walks the words before the cursor once per command line; sets ${fn}_path`);
  line(`# (the command path), ${fn}_expect (a flag whose value is due) and ${fn}_npos (positional words).`);
  line(`function ${fn}_state`);
  line('    set -l tokens (commandline -opc)');
  line('    set -l key (string join \\x1e -- $tokens)');
  line(`    if set -q ${fn}_key; and test "$${fn}_key" = "$key"`);
  line('        return');
  line('    end');
  line('    set -l p ""');
  line('    set -l expect ""');
  line('    set -l dd 0');
  line('    set -l np 0');
  line('    set -e tokens[1]');
  line('    for w in $tokens');
  line('        if test -n "$expect"');
  line('            set expect ""');
  line('            continue');
  line('        end');
  line('        if test $dd = 1');
  line('            set np (math $np + 1)');
  line('            continue');
  line('        end');
  line('        switch $w');
  line('            case --');
  line('                set dd 1');
  line("            case '--*=*'");
  line("            case '-?*'");
  line(`                if ${fn}_takes_value "$p" "$w"`);
  line('                    set expect $w');
  line('                end');
  line("            case '*'");
  line(`                set -l s (${fn}_sub "$p" "$w")`);
  line('                if test -n "$s"');
  line('                    set p (string trim -- "$p $s")');
  line('                    set np 0');
  line('                else');
  line('                    set np (math $np + 1)');
  line('                end');
  line('        end');
  line('    end');
  line(`    set -g ${fn}_key $key`);
  line(`    set -g ${fn}_path $p`);
  line(`    set -g ${fn}_expect $expect`);
  line(`    set -g ${fn}_dd $dd`);
  line(`    set -g ${fn}_npos $np`);
  line('end');
  line();
  line(`# ${fn}_at PATH...: the command path is one of PATH... (flags).`);
  line(`function ${fn}_at`);
  line(`    ${fn}_state`);
  line(`    test $${fn}_dd = 0; and contains -- "$${fn}_path" $argv`);
  line('end');
  line();
  line(`# ${fn}_at_any: not after -- (global flags).`);
  line(`function ${fn}_at_any`);
  line(`    ${fn}_state`);
  line(`    test $${fn}_dd = 0`);
  line('end');
  line();
  line(`# ${fn}_cmd PATH...: as ${fn}_at, and a word (not a flag value) is due (subcommands).`);
  line(`function ${fn}_cmd`);
  line(`    ${fn}_state`);
  line(`    test $${fn}_dd = 0; and test -z "$${fn}_expect"; and contains -- "$${fn}_path" $argv`);
  line('end');
  line();
  line(`# ${fn}_arg0 PATH...: as ${fn}_cmd, and no positional word yet (after -- too).`);
  line(`function ${fn}_arg0`);
  line(`    ${fn}_state`);
  line(`    test -z "$${fn}_expect"; and test $${fn}_npos = 0; and contains -- "$${fn}_path" $argv`);
  line('end');
  line();
  line('# The words before the cursor go along: pay reads the --country among them.');
  line(`function ${fn}_states`);
  line(`    command ${prog} __complete states (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null`);
  line('end');
  line();
  line(`function ${fn}_profiles`);
  line(`    command ${prog} __complete profiles 2>/dev/null`);
  line('end');
  line();

  line('# No file names: every word is a command, a flag, a value or an id.');
  line(`complete -c ${prog} -f`);
  line();
  line('# Subcommands.');
  for (const c of model.commands) {
    for (const s of c.subcommands) {
      line(
        `complete -c ${prog} -n ${fq(`${fn}_cmd ${pathArgs([pathKey(c.path)])}`)} -a ${s.name}${s.summary ? ` -d ${fq(s.summary)}` : ''}`,
      );
    }
  }
  line();
  line('# Flags of each command (a flag shared by several commands is one line).');
  const flags = new Groups<FlagModel>();
  for (const c of model.commands) for (const f of c.flags) flags.add(opt(f), f, pathKey(c.path));
  for (const g of flags) line(`complete -c ${prog} -n ${fq(`${fn}_at ${pathArgs(g.items)}`)} ${opt(g.value)}`);
  line();
  line('# Global flags: valid at any depth.');
  for (const f of model.globalFlags) line(`complete -c ${prog} -n ${fn}_at_any ${opt(f)}`);
  line();
  const dyn = model.commands.filter((c) => c.argumentDynamic === 'profiles').map((c) => pathKey(c.path));
  const withChoices = model.commands.filter((c) => c.argumentChoices);
  if (dyn.length || withChoices.length) line('# First positional argument.');
  if (dyn.length) line(`complete -c ${prog} -n ${fq(`${fn}_arg0 ${pathArgs(dyn)}`)} -a ${fq(`(${fn}_profiles)`)} -d profile`);
  for (const c of withChoices)
    line(`complete -c ${prog} -n ${fq(`${fn}_arg0 ${pathArgs([pathKey(c.path)])}`)} -a ${fq(c.argumentChoices!.join(' '))}`);
  return `${out.join('\n')}\n`;
}
