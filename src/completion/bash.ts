// The bash script: plain bash (no bash-completion functions), no subshells for static words.
// Data is case statements (bash 3.2 has no associative arrays; a case is as fast and needs no
// declare -g when bash-completion sources the file inside a function).
import type { CompletionModel } from './model.js';
import { GENERATED_NOTE, Groups, pathKey, sq, valueKind, flagWords } from './shared.js';

export function bashScript(model: CompletionModel): string {
  const prog = model.program;
  const fn = `_${prog.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const out: string[] = [];
  const line = (s = '') => out.push(s);

  line(`# bash completion for ${prog}.`);
  for (const n of GENERATED_NOTE) line(`# ${n}`);
  line('#');
  line('# Install (bash 4+, or the bash 3.2 of macOS; the bash-completion package is not needed):');
  line(`#   ${prog} completion bash > ~/.${prog}-completion.bash`);
  line(`#   echo 'source ~/.${prog}-completion.bash' >> ~/.bashrc`);
  line('# or, with bash-completion installed, let it load the file on demand:');
  line(
    `#   ${prog} completion bash > "\${BASH_COMPLETION_USER_DIR:-\${XDG_DATA_HOME:-$HOME/.local/share}/bash-completion}/completions/${prog}"`,
  );
  line();

  // Subcommand (or alias) word at a path → its name.
  line(`# ${fn}_sub PATH WORD: the subcommand WORD names at PATH (or nothing), in ${fn}_r.`);
  line(`${fn}_sub() {`);
  line('  case "$1|$2" in');
  for (const c of model.commands) {
    for (const s of c.subcommands) {
      const pats = [s.name, ...s.aliases].map((w) => sq(`${pathKey(c.path)}|${w}`)).join('|');
      line(`    ${pats}) ${fn}_r=${s.name} ;;`);
    }
  }
  line(`    *) ${fn}_r= ;;`);
  line('  esac');
  line('}');
  line();

  const subs = new Groups<string>();
  for (const c of model.commands)
    if (c.subcommands.length)
      subs.add(c.subcommands.map((s) => s.name).join(' '), c.subcommands.map((s) => s.name).join(' '), pathKey(c.path));
  line(`# ${fn}_subs PATH: the subcommands of PATH, in ${fn}_r.`);
  line(`${fn}_subs() {`);
  line('  case $1 in');
  for (const g of subs) line(`    ${g.items.map(sq).join('|')}) ${fn}_r=${sq(g.value)} ;;`);
  line(`    *) ${fn}_r= ;;`);
  line('  esac');
  line('}');
  line();

  const flags = new Groups<string>();
  for (const c of model.commands) {
    const w = flagWords(c.flags);
    flags.add(w, w, pathKey(c.path));
  }
  line(`# ${fn}_flags PATH: the flags of PATH and the global flags, in ${fn}_r.`);
  line(`${fn}_flags() {`);
  line('  case $1 in');
  for (const g of flags) line(`    ${g.items.map(sq).join('|')}) ${fn}_r=${sq(g.value)} ;;`);
  line(`    *) ${fn}_r= ;;`);
  line('  esac');
  line(`  ${fn}_r="$${fn}_r "${sq(flagWords(model.globalFlags))}`);
  line('}');
  line();

  // Value kinds: local flags first (exact path), then global flags at any path.
  const values = new Groups<string>();
  for (const c of model.commands) {
    for (const f of c.flags) {
      const kind = valueKind(f);
      if (!kind) continue;
      const body = kind === 'c' ? `${fn}_k=c ${fn}_r=${sq(f.choices!.join(' '))}` : `${fn}_k=${kind} ${fn}_r=`;
      for (const n of f.names) values.add(body, body, sq(`${pathKey(c.path)}|${n}`));
    }
  }
  for (const f of model.globalFlags) {
    const kind = valueKind(f);
    if (!kind) continue;
    const body = kind === 'c' ? `${fn}_k=c ${fn}_r=${sq(f.choices!.join(' '))}` : `${fn}_k=${kind} ${fn}_r=`;
    for (const n of f.names) values.add(body, body, `*${sq(`|${n}`)}`);
  }
  line(`# ${fn}_value PATH FLAG: whether FLAG takes a value at PATH, in ${fn}_k (c: the choices in ${fn}_r,`);
  line(`# p: a profile name, a: anything, empty: no value).`);
  line(`${fn}_value() {`);
  line('  case "$1|$2" in');
  for (const g of values) line(`    ${g.items.join('|')}) ${g.value} ;;`);
  line(`    *) ${fn}_k= ${fn}_r= ;;`);
  line('  esac');
  line('}');
  line();

  const args = new Groups<string>();
  for (const c of model.commands) {
    if (c.subcommands.length) continue;
    const body = c.argumentChoices
      ? `${fn}_k=c ${fn}_r=${sq(c.argumentChoices.join(' '))}`
      : `${fn}_k=${c.argumentDynamic === 'profiles' ? 'p' : c.takesArguments ? 'a' : 'n'}`;
    args.add(body, body, sq(pathKey(c.path)));
  }
  line(`# ${fn}_args PATH: what PATH's first positional word is, in ${fn}_k (c: one of ${fn}_r, p: a profile name,`);
  line('# a: anything, n: the command takes none).');
  line(`${fn}_args() {`);
  line('  case $1 in');
  for (const g of args) line(`    ${g.items.join('|')}) ${g.value} ;;`);
  line(`    *) ${fn}_k=a ;;`);
  line('  esac');
  line('}');
  line();

  line(`# ${fn}_add WORDS: the words that start with $cur.`);
  line(`${fn}_add() {`);
  line('  local w');
  line('  for w in $1; do [[ $w == "$cur"* ]] && COMPREPLY+=("$w"); done');
  line('}');
  line();
  line(`${fn}_profiles() {`);
  line(`  local w IFS=$'\\n'`);
  line(`  for w in $(command ${prog} __complete profiles 2>/dev/null); do [[ $w == "$cur"* ]] && COMPREPLY+=("$w"); done`);
  line('}');
  line();

  // The words before the cursor go along: pay reads the --country among them. No filtering
  // here: pay matches the bare subdivision too (`--country US --state va` offers US-VA).
  line(`${fn}_states() {`);
  line(`  local w IFS=$'\\n'`);
  line(
    `  for w in $(command ${prog} __complete states "\${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur" 2>/dev/null); do COMPREPLY+=("\${w%%$'\\t'*}"); done`,
  );
  line('}');
  line();

  line(`${fn}() {`);
  line(`  local IFS=$' \\t\\n' cur=\${COMP_WORDS[COMP_CWORD]} p= expect= dd= np=0 w i ${fn}_r ${fn}_k`);
  line('  COMPREPLY=()');
  line('  for (( i = 1; i < COMP_CWORD; i++ )); do');
  line('    w=${COMP_WORDS[i]}');
  line('    if [[ -n $expect ]]; then');
  line('      # --flag=value: COMP_WORDBREAKS splits it into --flag, =, value.');
  line('      [[ $w == = ]] || expect=');
  line('      continue');
  line('    fi');
  line('    if [[ -n $dd ]]; then np=$((np + 1)); continue; fi');
  line('    case $w in');
  line('      --) dd=1 ;;');
  line(`      -?*) ${fn}_value "$p" "$w"; [[ -n $${fn}_k ]] && expect=$w ;;`);
  line(`      *) ${fn}_sub "$p" "$w"`);
  line(`         if [[ -n $${fn}_r ]]; then p=\${p:+$p }$${fn}_r np=0; else np=$((np + 1)); fi ;;`);
  line('    esac');
  line('  done');
  line('  if [[ -n $expect ]]; then');
  line('    [[ $cur == = ]] && cur=');
  line(`    ${fn}_value "$p" "$expect"`);
  line(`    case $${fn}_k in`);
  line(`      c) ${fn}_add "$${fn}_r" ;;`);
  line(`      p) ${fn}_profiles ;;`);
  line(`      s) ${fn}_states ;;`);
  line('    esac');
  line('    return 0');
  line('  fi');
  line('  if [[ -z $dd && $cur == -* ]]; then');
  line(`    ${fn}_flags "$p"; ${fn}_add "$${fn}_r"`);
  line('    return 0');
  line('  fi');
  line(`  ${fn}_subs "$p"`);
  line(`  if [[ -n $${fn}_r ]]; then`);
  line(`    [[ -z $dd ]] && ${fn}_add "$${fn}_r"`);
  line('    return 0');
  line('  fi');
  line(`  ${fn}_args "$p"`);
  line(`  case $${fn}_k in`);
  line(`    c) (( np == 0 )) && ${fn}_add "$${fn}_r" ;;
    p) (( np == 0 )) && ${fn}_profiles ;;`);
  line(`    n) [[ -z $dd ]] && { ${fn}_flags "$p"; ${fn}_add "$${fn}_r"; } ;;`);
  line('  esac');
  line('  return 0');
  line('}');
  line();
  line(`complete -F ${fn} ${prog}`);
  return `${out.join('\n')}\n`;
}
