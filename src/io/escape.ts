// Escaping for every text sink lives in src/lib/escape.ts (a leaf: the error printer and the poll
// loop of src/lib/ use it, and lib is below io); the io room's printers and the commands import it
// here as well.
export * from '../lib/escape.js';
