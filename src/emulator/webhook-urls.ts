// Where each mode's events are delivered: its webhook URL, set by hand (`setUrl`: pay emulator
// webhook-url, --webhook-url) or taken by a listener (`takeUrl`: pay webhooks listen), which gives it
// back when it stops (`releaseUrl`): the URL it took over comes back only if the URL is still the listener's. Listeners that overlap form a
// chain: when one in the middle stops, the one after it inherits what it would have restored, so the
// last to stop restores the URL from before the first. A listener that never gives its URL back
// (killed with kill -9) is skipped: a give-back that would restore its URL asks whether anything
// still accepts connections there, and if not restores what that one would have (pastDeadClaims).
// Setting a URL by hand ends every claim. All of this is per mode: the two modes' URLs and claims
// never touch. With a data dir, the URLs and claims are saved on every change (webhook-file.ts) and
// restored at start (restore), so a restart delivers where the last run did and a listen that was
// running gives back what it took over.
import { connect } from 'node:net';
import { FileRefusedError } from '../shared/atomic-write.js';
import type { Mode } from './types.js';
import { loadWebhookSettings, MAX_CLAIMS, saveWebhookSettings, type Claim, type WebhookSettings } from './webhook-file.js';

/** How long a give-back waits for a listener on its chain to accept a connection (pastDeadClaims). */
const LIVENESS_TIMEOUT_MS = 1000;
/** How many listeners down the chain a give-back asks at most. */
const MAX_CHAIN_ASKED = 32;

export const MODES: readonly Mode[] = ['sandbox', 'live'];

export class WebhookUrls {
  /** Where each mode's events are delivered. */
  private readonly current: Record<Mode, string | undefined> = { sandbox: undefined, live: undefined };
  /** Per mode, the listeners holding its URL, oldest first: each with the URL it would give back. */
  private readonly claims: Record<Mode, Claim[]> = { sandbox: [], live: [] };
  /** Read from the data dir at construction, applied by restore() once the emulator knows its own address. */
  private saved: WebhookSettings | undefined;
  /** Why the last save failed (undefined: saved, or no data dir); the admin route reports it. */
  saveError: string | undefined;

  constructor(
    private readonly dataDir: string | undefined,
    private readonly log: (line: string) => void,
    /** A mode's URL was set (to a URL): its events still pending with no attempt due are to be delivered. */
    private readonly pointed: (mode: Mode) => void,
  ) {
    this.saved = dataDir === undefined ? undefined : loadWebhookSettings(dataDir);
  }

  /** Where the mode's events are delivered (undefined: nowhere, they stay pending). */
  urlOf(mode: Mode): string | undefined {
    return this.current[mode];
  }

  /** Sets the mode's URL by hand (or unsets it): listeners' claims on it end. The mode's events still pending with no attempt due are delivered. */
  setUrl(url: string | undefined, mode: Mode): void {
    this.claims[mode].length = 0;
    this.point(url, mode);
    this.save();
  }

  /**
   * Takes over the URLs and claims the data dir's last run saved (once `isSelf` knows this run's
   * address). A listener whose URL names this emulator now (restarted on that port) is gone: its
   * claim ends and, if it held the URL, what it would have given back is restored, as for a killed
   * one; any other URL naming the emulator becomes none. Events are not delivered here: the caller
   * runs deliverPending().
   */
  restore(isSelf: (url: string) => boolean): void {
    const saved = this.saved;
    this.saved = undefined;
    if (!saved) return;
    for (const mode of MODES) {
      this.claims[mode] = saved[mode].claims.map((c) => ({ ...c }));
      let url = saved[mode].url;
      // Oldest first: an ended claim's give-back target is passed on before a later one reads it.
      for (const c of [...this.claims[mode]])
        if (isSelf(c.url)) {
          const gone = this.unclaim(c.url, mode);
          if (gone && url === c.url) url = gone.previous;
        }
      for (const c of this.claims[mode]) if (c.previous !== undefined && isSelf(c.previous)) c.previous = undefined;
      this.current[mode] = url !== undefined && !isSelf(url) ? url : undefined;
    }
    this.save();
  }

  /** Saves the URLs and claims in the data dir (if any); a failure is remembered in saveError and logged, the change stays in effect. */
  private save(): void {
    if (this.dataDir === undefined) return;
    try {
      saveWebhookSettings(this.dataDir, {
        sandbox: { url: this.current.sandbox, claims: this.claims.sandbox },
        live: { url: this.current.live, claims: this.claims.live },
      });
      this.saveError = undefined;
    } catch (err) {
      this.saveError = err instanceof FileRefusedError ? err.reason : ((err as NodeJS.ErrnoException).code ?? (err as Error).message);
      this.log(`could not save the webhook URLs in the data dir (${this.saveError}): they hold until the emulator stops`);
    }
  }

  /** A listener takes the mode's URL; returns the one it took over (restored by releaseUrl if the URL is still the listener's). */
  takeUrl(url: string, mode: Mode): string | undefined {
    // The same listener again (restarted on its port without releasing): one claim, not a claim on itself.
    const old = this.unclaim(url, mode);
    const previous = old && this.current[mode] === url ? old.previous : this.current[mode];
    this.claims[mode].push({ url, previous });
    // Bounded (the saved file too): the oldest claim ends, what it would restore passed on.
    while (this.claims[mode].length > MAX_CLAIMS) this.unclaim(this.claims[mode][0]!.url, mode);
    this.point(url, mode);
    this.save();
    return previous;
  }

  /**
   * A listener gives the mode's URL back: restored to what it took over if the URL is still the
   * listener's (true); else left as it is (false), and the listener that took over from it will
   * restore what this one would have.
   */
  async releaseUrl(url: string, mode: Mode): Promise<boolean> {
    const mine = this.unclaim(url, mode);
    if (!mine || this.current[mode] !== url) {
      if (mine) this.save();
      return false;
    }
    const restore = await this.pastDeadClaims(mine.previous, mode);
    // Changed while the listeners were asked (set by hand, or another listen took it): left as it is.
    if (this.current[mode] !== url) {
      for (const c of this.claims[mode]) if (c.previous === url) c.previous = restore;
      this.save();
      return false;
    }
    this.point(restore, mode);
    this.save();
    return true;
  }

  /**
   * What a give-back restores: `previous`, unless it is the URL of a listener that still holds a
   * claim but is gone (killed with kill -9: nothing accepts a connection at its address); then that
   * claim ends and what it would have restored is taken instead, and so on down the chain. The
   * listeners on the chain are asked all at once (at most LIVENESS_TIMEOUT_MS).
   */
  private async pastDeadClaims(previous: string | undefined, mode: Mode): Promise<string | undefined> {
    const chain: Claim[] = [];
    for (let at = previous; at !== undefined && chain.length < MAX_CHAIN_ASKED;) {
      const claim = this.claims[mode].find((c) => c.url === at);
      if (!claim || chain.includes(claim)) break;
      chain.push(claim);
      at = claim.previous;
    }
    if (chain.length === 0) return previous;
    const alive = await Promise.all(chain.map((c) => answers(c.url)));
    let restore = previous;
    for (let i = 0; i < chain.length && !alive[i]; i++) {
      // Ended now, not at its own give-back (which will never come): the next claims skip it too.
      if (this.unclaim(chain[i]!.url, mode)) restore = chain[i]!.previous;
      else break;
    }
    return restore;
  }

  /** Removes a listener's claim and passes what it would restore on to the claim that took over from it. */
  private unclaim(url: string, mode: Mode): Claim | undefined {
    const claims = this.claims[mode];
    const at = claims.findLastIndex((c) => c.url === url);
    if (at < 0) return undefined;
    const [mine] = claims.splice(at, 1);
    for (const c of claims) if (c.previous === url) c.previous = mine!.previous;
    return mine;
  }

  private point(url: string | undefined, mode: Mode): void {
    this.current[mode] = url;
    if (url) this.pointed(mode);
  }

  /** Whether any mode has a URL (else no attempt can start). */
  get anyUrl(): boolean {
    return MODES.some((m) => this.current[m] !== undefined);
  }
}

/** Whether something accepts a TCP connection at the URL's host and port (a listener that is still there). */
function answers(raw: string): Promise<boolean> {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return Promise.resolve(false);
  }
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(LIVENESS_TIMEOUT_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
