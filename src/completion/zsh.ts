// The zsh script: a native #compdef function. It walks $words like the bash one (same rules), then
// offers subcommands and flags with their descriptions through _describe, and values through compadd.
import type { CompletionModel, FlagModel } from './model.js';
import { GENERATED_NOTE, Groups, pathKey, sq, valueKind } from './shared.js';

/** `name:description` for _describe (a colon in the name would need escaping; names have none). */
function spec(name: string, description: string): string {
  return sq(`${name}:${description.replace(/\s+/g, ' ')}`);
}

function flagSpecs(flags: readonly FlagModel[]): string {
  return flags.flatMap((f) => f.names.map((n) => spec(n, f.description))).join(' ');
}

export function zshScript(model: CompletionModel): string {
  const prog = model.program;
  const fn = `_${prog.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const out: string[] = [];
  const line = (s = '') => out.push(s);

  line(`#compdef ${prog}`);
  line(`# zsh completion for ${prog}.`);
  for (const n of GENERATED_NOTE) line(`# ${n}`);
  line('#');
  line(`# Install: save it as _${prog} in a folder on $fpath, before compinit runs, e.g.`);
  line(`#   mkdir -p ~/.zfunc && ${prog} completion zsh > ~/.zfunc/_${prog}`);
  line('#   # in ~/.zshrc, before `autoload -Uz compinit && compinit`:');
  line('#   fpath=(~/.zfunc $fpath)');
  line(`# or load it for this session, after compinit:  source <(${prog} completion zsh)`);
  line();

  line(`# ${fn}_sub PATH WORD: the subcommand WORD names at PATH (or nothing), in REPLY.`);
  line(`${fn}_sub() {`);
  line('  case "$1|$2" in');
  for (const c of model.commands) {
    for (const s of c.subcommands) {
      const pats = [s.name, ...s.aliases].map((w) => sq(`${pathKey(c.path)}|${w}`)).join('|');
      line(`    ${pats}) REPLY=${s.name} ;;`);
    }
  }
  line('    *) REPLY= ;;');
  line('  esac');
  line('}');
  line();

  line(`# ${fn}_subs PATH: the subcommands of PATH as name:summary, in reply.`);
  line(`${fn}_subs() {`);
  line('  case $1 in');
  for (const c of model.commands) {
    if (!c.subcommands.length) continue;
    line(`    ${sq(pathKey(c.path))}) reply=(`);
    for (const s of c.subcommands) line(`      ${spec(s.name, s.summary)}`);
    line('    ) ;;');
  }
  line('    *) reply=() ;;');
  line('  esac');
  line('}');
  line();

  const flags = new Groups<string>();
  for (const c of model.commands) {
    const s = flagSpecs(c.flags);
    flags.add(s, s, sq(pathKey(c.path)));
  }
  line(`# ${fn}_flags PATH: the flags of PATH and the global flags as flag:description, in reply.`);
  line(`${fn}_flags() {`);
  line('  case $1 in');
  for (const g of flags) line(`    ${g.items.join('|')}) reply=(${g.value}) ;;`);
  line('    *) reply=() ;;');
  line('  esac');
  line(`  reply+=(${flagSpecs(model.globalFlags)})`);
  line('}');
  line();

  const values = new Groups<string>();
  const body = (f: FlagModel) => {
    const k = valueKind(f);
    return k === 'c' ? `REPLY=c reply=(${f.choices!.map(sq).join(' ')})` : `REPLY=${k} reply=()`;
  };
  for (const c of model.commands)
    for (const f of c.flags) if (valueKind(f)) for (const n of f.names) values.add(body(f), body(f), sq(`${pathKey(c.path)}|${n}`));
  for (const f of model.globalFlags) if (valueKind(f)) for (const n of f.names) values.add(body(f), body(f), `*${sq(`|${n}`)}`);
  line(`# ${fn}_value PATH FLAG: whether FLAG takes a value at PATH, in REPLY (c: the choices in reply,`);
  line('# p: a profile name, a: anything, empty: no value).');
  line(`${fn}_value() {`);
  line('  case "$1|$2" in');
  for (const g of values) line(`    ${g.items.join('|')}) ${g.value} ;;`);
  line('    *) REPLY= reply=() ;;');
  line('  esac');
  line('}');
  line();

  const args = new Groups<string>();
  for (const c of model.commands) {
    if (c.subcommands.length) continue;
    const body = c.argumentChoices
      ? `REPLY=c reply=(${c.argumentChoices.map(sq).join(' ')})`
      : `REPLY=${c.argumentDynamic === 'profiles' ? 'p' : c.takesArguments ? 'a' : 'n'}`;
    args.add(body, body, sq(pathKey(c.path)));
  }
  line(`# ${fn}_args PATH: what PATH's first positional word is, in REPLY (c: one of reply, p: a profile name,`);
  line('# a: anything, n: the command takes none).');
  line(`${fn}_args() {`);
  line('  case $1 in');
  for (const g of args) line(`    ${g.items.join('|')}) ${g.value} ;;`);
  line('    *) REPLY=a ;;');
  line('  esac');
  line('}');
  line();

  line(`${fn}_profiles() {`);
  line('  local -a names expl');
  line(`  names=(\${(f)"$(command ${prog} __complete profiles 2>/dev/null)"})`);
  line(`  _wanted profiles expl 'profile' compadd -a names`);
  line('}');
  line();

  // The words before the cursor go along: pay reads the --country among them, and matches the
  // bare subdivision too, so its answers are added unfiltered (-U).
  line(`${fn}_states() {`);
  line('  local -a lines codes descs expl');
  line('  local l');
  line(`  lines=(\${(f)"$(command ${prog} __complete states "\${(@)words[2,CURRENT-1]}" "$PREFIX" 2>/dev/null)"})`);
  line("  for l in $lines; do codes+=(\"${l%%$'\\t'*}\"); descs+=(\"${l%%$'\\t'*}  ${l#*$'\\t'}\"); done");
  line(`  (( $#codes )) && _wanted states expl 'ISO 3166-2 subdivision' compadd -U -d descs -a codes`);
  line('}');
  line();

  line(`# ${fn}_values FLAG: complete the value of FLAG (its kind is in REPLY, choices in reply).`);
  line(`${fn}_values() {`);
  line('  local -a expl');
  line('  case $REPLY in');
  line(`    c) _wanted values expl "$1 value" compadd -a reply ;;`);
  line(`    p) ${fn}_profiles ;;`);
  line(`    s) ${fn}_states ;;`);
  line(`    a) _message -e values "$1 value" ;;`);
  line('  esac');
  line('}');
  line();

  line(`${fn}() {`);
  line('  local cmdpath= expect= dd= w REPLY flag');
  line('  local -i i np=0');
  line('  local -a reply');
  line('  for (( i = 2; i < CURRENT; i++ )); do');
  line('    w=${words[i]}');
  line('    if [[ -n $expect ]]; then expect=; continue; fi');
  line('    if [[ -n $dd ]]; then (( ++np )); continue; fi');
  line('    case $w in');
  line('      --) dd=1 ;;');
  line('      --*=*) ;;');
  line(`      -?*) ${fn}_value "$cmdpath" "$w"; [[ -n $REPLY ]] && expect=$w ;;`);
  line(`      *) ${fn}_sub "$cmdpath" "$w"`);
  line('         if [[ -n $REPLY ]]; then cmdpath=${cmdpath:+$cmdpath }$REPLY; np=0; else (( ++np )); fi ;;');
  line('    esac');
  line('  done');
  line('  if [[ -n $expect ]]; then');
  line(`    ${fn}_value "$cmdpath" "$expect"; ${fn}_values "$expect"`);
  line('    return');
  line('  fi');
  line('  if [[ -z $dd && $PREFIX == --*=* ]]; then');
  line('    flag=${PREFIX%%=*}');
  line(`    ${fn}_value "$cmdpath" "$flag"`);
  line('    [[ -n $REPLY ]] || return 1');
  line(`    compset -P '*='; ${fn}_values "$flag"`);
  line('    return');
  line('  fi');
  line('  if [[ -z $dd && $PREFIX == -* ]]; then');
  line(`    ${fn}_flags "$cmdpath"; _describe -t options 'flag' reply`);
  line('    return');
  line('  fi');
  line(`  ${fn}_subs "$cmdpath"`);
  line('  if (( $#reply )); then');
  line(`    [[ -z $dd ]] && _describe -t commands 'command' reply`);
  line('    return');
  line('  fi');
  line(`  ${fn}_args "$cmdpath"`);
  line('  case $REPLY in');
  line(`    c) (( np == 0 )) && { local -a expl; _wanted values expl 'argument' compadd -a reply; } ;;
    p) (( np == 0 )) && ${fn}_profiles ;;`);
  line(`    n) [[ -z $dd ]] && { ${fn}_flags "$cmdpath"; _describe -t options 'flag' reply; } ;;`);
  line('    *) return 1 ;;');
  line('  esac');
  line('}');
  line();
  line('# Autoloaded from $fpath: complete now. Sourced: register the function.');
  line(`if [[ $funcstack[1] == ${fn} ]]; then`);
  line(`  ${fn} "$@"`);
  line('else');
  line(`  compdef ${fn} ${prog}`);
  line('fi');
  return `${out.join('\n')}\n`;
}
