#!/usr/bin/env node
// A reference for scripts/bench/proxy-llm.mjs: the least any relay process in the path can cost — raw
// TCP, bytes piped both ways, no HTTP parsing, no usage, no events. What it loses against a direct
// connection on this machine is the cost of one more process and two more socket hops.
//   node scripts/bench/tcp-relay.mjs <upstream-url>   (prints "listening on http://127.0.0.1:<port>")
import { connect, createServer } from 'node:net';

const upstream = new URL(process.argv[2]);
const server = createServer((client) => {
  const peer = connect(Number(upstream.port), upstream.hostname);
  // As the proxy's own sockets: Nagle would hold a stream's last small write back until the peer's
  // delayed ACK (40 ms seen, on a 20 ms stream).
  client.setNoDelay(true);
  peer.setNoDelay(true);
  client.pipe(peer);
  peer.pipe(client);
  client.on('error', () => peer.destroy());
  peer.on('error', () => client.destroy());
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
