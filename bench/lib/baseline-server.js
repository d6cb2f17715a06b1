'use strict';
// The throughput baseline: a plain node:http server that takes the same multipart upload and
// only hashes the request body. No framework, no multipart parsing, no validation, no storage,
// so it measures what this machine's TCP stack, Node and the load generator allow.
// Usage: node bench/lib/baseline-server.js <port>

const { createHash } = require('node:crypto');
const http = require('node:http');

const port = Number(process.argv[2]);

const server = http.createServer((req, res) => {
  const hash = createHash('sha256');
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    hash.update(chunk);
  });
  req.on('end', () => {
    const body = JSON.stringify({ sha256: hash.digest('hex'), sizeBytes: size });
    res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 75_000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`baseline listening on 127.0.0.1:${port}\n`));
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
