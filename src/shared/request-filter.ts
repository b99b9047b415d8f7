// The filters of the emulator's request log (`pay emulator requests --status … --path …`), one
// reading for the CLI (which checks them before asking: exit 2) and the emulator's admin route
// (which applies them, so --limit counts matching requests).

export const STATUS_FILTER_FORMS = '2xx, 3xx, 4xx, 5xx or one code such as 404';
export const PATH_FILTER_FORMS =
  'a path prefix (/v1/customers), or a glob where * matches within one segment and a ** segment any number of segments (/v1/customers/*/kyc, /v1/**/kyc); without a leading /, under /v1/';

/** --status: a class (`4xx`) or one code (`404`); undefined when it is neither. */
export function statusMatcher(raw: string): ((status: number | null) => boolean) | undefined {
  const v = raw.trim().toLowerCase();
  const cls = /^([1-5])xx$/.exec(v);
  if (cls) {
    const c = Number(cls[1]);
    return (s) => s !== null && Math.floor(s / 100) === c;
  }
  if (/^[1-5]\d\d$/.test(v)) {
    const code = Number(v);
    return (s) => s === code;
  }
  return undefined;
}

/**
 * --path: without `*`, a prefix of the path; with it, a glob over the whole path, matched segment
 * by segment: a segment that is only `*`s (`**`) matches any number of whole segments (none too),
 * and in any other segment `*` matches any characters but `/`. A pattern not starting with `/` is
 * read under `/v1/`. Undefined for an empty pattern, one over 512 characters, or one with a control
 * character, a space, `?` or `#`.
 *
 * No regex and no backtracking: the emulator runs this over its whole log, four times a second
 * under `--follow`, with a pattern from the command line. Within a segment the pieces between `*`s
 * are found leftmost, in order; across segments, the runs of segments between `**`s are placed
 * leftmost, in order. Leftmost is right for both because a star there matches anything, so an
 * earlier place never leaves less room for what follows. A match costs at most about
 * (path length × pattern segments), never more.
 */
export function pathMatcher(raw: string): ((path: string) => boolean) | undefined {
  if (raw === '' || raw.length > 512 || /[\u0000-\u0020\u007f-\u009f?#]/.test(raw)) return undefined;
  const pattern = raw.startsWith('/') ? raw : `/v1/${raw}`;
  if (!pattern.includes('*')) return (p) => p.startsWith(pattern);
  return globMatcher(pattern);
}

type SegmentTest = (segment: string) => boolean;

/** One segment's glob (`*` any characters): the pieces between stars, found leftmost in order. */
function segmentTest(glob: string): SegmentTest {
  if (!glob.includes('*')) return (s) => s === glob;
  const pieces = glob.split(/\*+/);
  const head = pieces[0]!;
  const tail = pieces[pieces.length - 1]!;
  const middle = pieces.slice(1, -1).filter((p) => p !== '');
  const least = middle.reduce((n, p) => n + p.length, head.length + tail.length);
  return (s) => {
    if (s.length < least || !s.startsWith(head) || !s.endsWith(tail)) return false;
    const end = s.length - tail.length;
    let at = head.length;
    for (const piece of middle) {
      const i = s.indexOf(piece, at);
      if (i < 0 || i + piece.length > end) return false;
      at = i + piece.length;
    }
    return true;
  };
}

/** Whether `tests` match `segments` one for one from `at`. */
function runAt(tests: readonly SegmentTest[], segments: readonly string[], at: number): boolean {
  for (let k = 0; k < tests.length; k++) if (!tests[k]!(segments[at + k]!)) return false;
  return true;
}

function globMatcher(pattern: string): (path: string) => boolean {
  // The runs of segments between `**` segments: the first is anchored at the start, the last at the
  // end (when there is a `**` at all), the others float.
  const runs: SegmentTest[][] = [[]];
  for (const seg of pattern.split('/')) {
    if (/^\*{2,}$/.test(seg)) runs.push([]);
    else runs[runs.length - 1]!.push(segmentTest(seg));
  }
  const first = runs[0]!;
  const last = runs[runs.length - 1]!;
  const floating = runs.slice(1, -1);
  return (path) => {
    const segments = path.split('/');
    if (runs.length === 1) return segments.length === first.length && runAt(first, segments, 0);
    const end = segments.length - last.length;
    if (end < first.length || !runAt(first, segments, 0) || !runAt(last, segments, end)) return false;
    let at = first.length;
    for (const run of floating) {
      let found = -1;
      for (let i = at; i + run.length <= end; i++) {
        if (runAt(run, segments, i)) {
          found = i;
          break;
        }
      }
      if (found < 0) return false;
      at = found + run.length;
    }
    return true;
  };
}
