// A progress bar on stderr, for terminals only (seed apply, bulk create). Redrawn at most every
// 100 ms with \r; cleared when done. Off a terminal it draws nothing: the summary line says it all.
// The label is shown escaped (escape.ts): only the bar's own \r and line clear reach the terminal.
import { escapeText } from './escape.js';
import type { IOStreams } from './iostreams.js';

export interface Progress {
  tick(n?: number): void;
  total(n: number): void;
  done(): void;
}

const NONE: Progress = { tick() {}, total() {}, done() {} };

export function progressBar(io: IOStreams, label: string, total?: number): Progress {
  if (!io.stderrIsTTY) return NONE;
  const shown = escapeText(label);
  let count = 0;
  let max = total;
  let last = 0;
  let finished = false;
  const started = Date.now();
  const draw = (force = false) => {
    if (finished) return;
    const now = Date.now();
    if (!force && now - last < 100) return;
    last = now;
    const rate = count / Math.max(0.001, (now - started) / 1000);
    const width = 30;
    let bar: string;
    if (max && max > 0) {
      const filled = Math.min(width, Math.round((count / max) * width));
      bar = `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${count}/${max}`;
    } else {
      bar = `${count}`;
    }
    io.err(`\r\u001b[2K${shown} ${bar} (${rate.toFixed(0)}/s)`);
  };
  return {
    tick(n = 1) {
      count += n;
      draw();
    },
    total(n) {
      max = n;
      draw(true);
    },
    done() {
      draw(true);
      finished = true;
      io.err('\r\u001b[2K');
    },
  };
}
