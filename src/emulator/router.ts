// Routes by path segments: a trie whose `{name}` segments match any single segment. Paths are
// checked for a safe character set first, so encoded slashes, dot segments, empty segments and
// other garbage never reach a handler (404 route_not_found).
import { ApiProblem } from './problems.js';

interface Node<R> {
  fixed: Map<string, Node<R>>;
  param: { name: string; node: Node<R> } | undefined;
  methods: Map<string, R>;
}

const node = <R>(): Node<R> => ({ fixed: new Map(), param: undefined, methods: new Map() });
const SAFE_PATH = /^(\/[A-Za-z0-9_.~-]+)+$/;

export interface Match<R> {
  route: R;
  params: Record<string, string>;
}

export class Router<R> {
  private readonly root: Node<R> = node();

  add(method: string, path: string, route: R): void {
    let n = this.root;
    for (const seg of path.split('/').filter(Boolean)) {
      const m = /^\{(\w+)\}$/.exec(seg);
      if (m) {
        if (n.param && n.param.name !== m[1]) throw new Error(`conflicting parameter names at ${path}`);
        n.param ??= { name: m[1]!, node: node() };
        n = n.param.node;
      } else {
        let next = n.fixed.get(seg);
        if (!next) n.fixed.set(seg, (next = node()));
        n = next;
      }
    }
    if (n.methods.has(method)) throw new Error(`duplicate route ${method} ${path}`);
    n.methods.set(method, route);
  }

  /** The route for a method and path; throws 404 route_not_found or 405 method_not_allowed. */
  match(method: string, path: string): Match<R> {
    if (path.length > 512 || !SAFE_PATH.test(path)) throw routeNotFound(path);
    const segs = path.split('/');
    const params: Record<string, string> = {};
    let n: Node<R> | undefined = this.root;
    for (let i = 1; i < segs.length && n; i++) {
      const seg = segs[i]!;
      if (seg === '.' || seg === '..') throw routeNotFound(path);
      const fixed: Node<R> | undefined = n.fixed.get(seg);
      if (fixed) n = fixed;
      else if (n.param) {
        params[n.param.name] = seg;
        n = n.param.node;
      } else n = undefined;
    }
    if (!n || n.methods.size === 0) throw routeNotFound(path);
    const route = n.methods.get(method);
    if (!route) {
      const allow = [...n.methods.keys()].sort().join(', ');
      throw new ApiProblem(405, 'method_not_allowed', `${method} is not allowed here (allowed: ${allow})`, undefined, { Allow: allow });
    }
    return { route, params };
  }
}

export const routeNotFound = (path: string): ApiProblem =>
  new ApiProblem(
    404,
    'route_not_found',
    `no such path: ${path.length > 80 ? `${path.slice(0, 80)}…` : path}`.replace(/[^\x20-\x7e]/g, '?'),
  );
