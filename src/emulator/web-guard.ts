// Keeps web pages away from the emulator: a request is refused (403) unless its Host names
// this machine's loopback (or the exact address the emulator listens on), it carries no Origin
// (or one given with --allow-origin), and it is no CORS preflight. No answer ever carries an
// Access-Control-* header, so a browser never lets a page read one.
//
// Host, with or without a port (1-65535; letters case-insensitive):
//   localhost and *.localhost (RFC 6761 keeps them on loopback; one trailing dot allowed),
//   127.0.0.0/8 written as four decimal numbers (127.0.0.1, not 2130706433 or 0177.0.0.1),
//   [::1] in any IPv6 spelling ([0:0:0:0:0:0:0:1], [::ffff:127.0.0.1]; no zone id),
//   the address the connection came in on when it is an IP literal (--host 0.0.0.0 or a LAN
//   address: clients there name it as such), and the --host value itself.
// Everything else, a missing Host and userinfo included, is refused: a DNS-rebinding page
// reaches 127.0.0.1 under its own name, which it cannot make one of these.
import type { IncomingMessage } from 'node:http';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { ApiProblem } from './problems.js';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const LOCALHOST = new RegExp(`^(?:${LABEL}\\.)*localhost$`);

export interface WebGuardOptions {
  /** The address or name the server listens on (--host). */
  listenHost?: string | undefined;
  /** Origins allowed to send requests (--allow-origin), as parseOrigin returns them. */
  allowOrigins?: readonly string[] | undefined;
}

/** An origin (scheme://host[:port]) in its serialized form, or undefined when `v` is not one. */
export function parseOrigin(v: string): string | undefined {
  if (v.length > 300 || !/^https?:\/\/[^/?#@\s]+\/?$/i.test(v)) return undefined;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return undefined;
  }
  if (u.username || u.password || (u.protocol !== 'http:' && u.protocol !== 'https:')) return undefined;
  return u.origin;
}

/** Host and port of a Host header value, or undefined when it is not one. */
function splitHost(value: string): { name: string; ip: 4 | 6 | 0 } | undefined {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^[\]:@/\\\s]+))(?::([0-9]{1,5}))?$/.exec(value);
  if (!m) return undefined;
  if (m[3] !== undefined && !(Number(m[3]) >= 1 && Number(m[3]) <= 65535)) return undefined;
  if (m[1] !== undefined) return isIPv6(m[1]) ? { name: m[1].toLowerCase(), ip: 6 } : undefined;
  const name = m[2]!.toLowerCase();
  return { name, ip: isIPv4(name) ? 4 : 0 };
}

function sameAddress(a: string, family: 4 | 6, local: string | undefined): boolean {
  if (!local) return false;
  const list = new BlockList();
  try {
    list.addAddress(local, isIPv4(local) ? 'ipv4' : 'ipv6');
    return list.check(a, family === 4 ? 'ipv4' : 'ipv6');
  } catch {
    return false;
  }
}

/** Whether a Host header value names this emulator (see the rules at the top). */
export function hostAllowed(value: string | undefined, localAddress: string | undefined, listenHost?: string): boolean {
  if (value === undefined || value.length > 300) return false;
  const h = splitHost(value);
  if (!h) return false;
  if (h.ip === 6) return LOOPBACK.check(h.name, 'ipv6') || sameAddress(h.name, 6, localAddress);
  if (h.ip === 4) return LOOPBACK.check(h.name, 'ipv4') || sameAddress(h.name, 4, localAddress);
  const name = h.name.endsWith('.') ? h.name.slice(0, -1) : h.name;
  if (name.length <= 253 && LOCALHOST.test(name)) return true;
  return !!listenHost && !isIPv4(listenHost) && !isIPv6(listenHost) && name === listenHost.toLowerCase().replace(/\.$/, '');
}

const refuse = (code: string, detail: string): ApiProblem => new ApiProblem(403, code, detail, undefined, { Connection: 'close' });

/**
 * hostAllowed's answers per server (its options) by Host value and local address: a client sends
 * the same Host on every request, and the check (a BlockList lookup makes a SocketAddress) was 5%
 * of a POST's CPU. Bounded: any Host can come in; past 256 entries it starts over. (A Host value
 * holds no line break: Node refuses one.)
 */
const hostAnswers = new WeakMap<WebGuardOptions, Map<string, boolean>>();

function hostAllowedMemo(value: string | undefined, localAddress: string | undefined, o: WebGuardOptions): boolean {
  if (value === undefined || value.length > 300) return false;
  let answers = hostAnswers.get(o);
  if (!answers) hostAnswers.set(o, (answers = new Map<string, boolean>()));
  const key = `${value}\n${localAddress ?? ''}`;
  let ok = answers.get(key);
  if (ok === undefined) {
    ok = hostAllowed(value, localAddress, o.listenHost);
    if (answers.size >= 256) answers.clear();
    answers.set(key, ok);
  }
  return ok;
}

/** The problem to answer instead of serving `req`, if it must be refused. */
export function webGuard(req: IncomingMessage, o: WebGuardOptions): ApiProblem | undefined {
  const h = req.headers;
  if (!hostAllowedMemo(h.host, req.socket.localAddress, o)) {
    return refuse(
      'host_not_allowed',
      "the Host header must name this machine's loopback (localhost, 127.0.0.1, [::1]) or the address the emulator listens on",
    );
  }
  const origin = h.origin;
  if (origin !== undefined) {
    // Browsers send the serialized origin: it must be one of the allowed ones exactly.
    if (!o.allowOrigins?.includes(origin)) {
      return refuse(
        'origin_not_allowed',
        'requests from web pages (with an Origin header) are refused; pay emulator start --allow-origin <origin> allows one',
      );
    }
  } else {
    // A page's no-cors request (an <img>, a form) carries no Origin on GET, but browsers mark it.
    const site = h['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site') return refuse('origin_not_allowed', 'requests from other sites are refused');
  }
  if (req.method === 'OPTIONS' && (h['access-control-request-method'] !== undefined || h['access-control-request-headers'] !== undefined)) {
    return refuse('cors_not_supported', 'CORS preflight requests are refused: the emulator does not serve web pages');
  }
  return undefined;
}
