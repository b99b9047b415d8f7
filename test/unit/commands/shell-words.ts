// Shell lines as a user would type them (the help's examples): the argv of each pay command in them.

/**
 * The argv of each `pay` command in an example's shell line, as the shell would pass it: quotes
 * removed; other commands of a pipeline or list, redirections (`> file`, `2>&1`) and a trailing
 * comment left out.
 */
export function payArgvs(line: string): string[][] {
  const commands: string[][] = [[]];
  let word: string | undefined;
  let redirected = false;
  const end = (): void => {
    if (word !== undefined && !redirected) commands.at(-1)!.push(word);
    word = undefined;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" || c === '"') {
      const close = line.indexOf(c, i + 1);
      if (close < 0) throw new Error(`unbalanced ${c} in: ${line}`);
      word = (word ?? '') + line.slice(i + 1, close);
      i = close;
    } else if (c === ' ' || c === '\t') end();
    else if (c === '|' || c === ';' || c === '&') {
      if (c === '&' && line[i - 1] === '>') continue; // 2>&1
      end();
      redirected = false;
      if (commands.at(-1)!.length > 0) commands.push([]);
    } else if (c === '>' || c === '<') {
      if (word !== undefined && /^\d$/.test(word)) word = undefined; // 2>
      end();
      redirected = true;
    } else if (c === '#' && word === undefined) break;
    else word = (word ?? '') + c;
  }
  end();
  return commands.filter((argv) => argv[0] === 'pay').map((argv) => argv.slice(1));
}
