// What every stand-in shares: an HTTP server on 127.0.0.1 that hands each request's parsed
// body to `handle(url, body, res)` and keeps the bodies `handle` says to record.
import http from 'node:http';

/**
 * Starts a stand-in. `handle` answers on `res` and returns whether the request is one the tests
 * read (a model turn, not a token count). Resolves to `{ url, requests, close }`.
 */
export async function serve(handle, path = '') {
  const requests = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : {};
      if (handle(req.url, body, res, requests.length + 1)) requests.push(body);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}${path}`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Writes one server-sent event. */
export function event(res, type, data) {
  res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

/** Answers with JSON. */
export function json(res, value) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}
