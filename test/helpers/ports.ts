// A loopback port nothing listens on right now: bound to port 0, read, closed. For a URL that must
// refuse connections (a webhook app that is down) or a port to start a server on.
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
