// Preloaded with NODE_OPTIONS=--require: appends the destination of every outgoing socket and
// every DNS lookup of the process to $PAY_NET_SPY, one per line. Used to prove pay calls nothing
// but the configured service (no update check, no telemetry).
const fs = require('node:fs');
const net = require('node:net');
const dns = require('node:dns');
const out = process.env.PAY_NET_SPY;
const log = (line) => {
  try {
    fs.appendFileSync(out, `${line}\n`);
  } catch {
    // the log is best effort: a test must not fail because its spy could not write
  }
};
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  // net.connect passes [options, callback] (normalized) as the first argument.
  const o = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (o && typeof o === 'object') log(`connect ${o.path ?? `${o.host ?? 'localhost'}:${o.port}`}`);
  else log(`connect ${args[1] ?? 'localhost'}:${o}`);
  return connect.apply(this, args);
};
const lookup = dns.lookup;
dns.lookup = function (host, ...rest) {
  log(`lookup ${host}`);
  return lookup.call(this, host, ...rest);
};
