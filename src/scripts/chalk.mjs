// What pay's modules get for 'chalk' in dist/ (src/scripts/build.mjs): its Chalk class, which
// loads chalk (with its colour detection, which loads node:os and node:tty, and its tables of
// styles) the first time a colour is asked for. Colour off (level 0) is plain text, as chalk
// makes it: every style, chained or not, returns its arguments as a string ('' + the one
// argument, or all of them joined by spaces), and `level` is 0. test/unit/chalk-facade.test.ts
// holds it to chalk.
let real;
// The bundle's require: the bundled chalk, initialised the first time this runs.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- an import would initialise chalk with the bundle
const chalk = () => (real ??= require('chalk'));

const plain = new Proxy(function plain() {}, {
  get: (_, key) => (key === 'level' ? 0 : plain),
  apply: (_, __, args) => (args.length === 1 ? '' + args[0] : args.join(' ')),
});

export class Chalk {
  constructor(options) {
    if (options !== undefined && options !== null && options.level === 0) return plain;
    return new (chalk().Chalk)(options);
  }
}
