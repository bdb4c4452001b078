// A stand-in of the Gemini API on 127.0.0.1: it records every request body and answers
// `generateContent` (JSON, for the CLI's router, which asks for a JSON reply of a schema) and
// `streamGenerateContent` (server-sent events) with one short reply.
import http from 'node:http';

/** Starts the stand-in; `reply(body)` gives the text of a streamed answer. */
export async function startGemini(reply = () => 'OK.') {
  const requests = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : {};
      const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 };
      const answer = (text) => ({
        candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata,
      });
      if (req.url.includes(':countTokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ totalTokens: 10 }));
      }
      if (!req.url.includes(':streamGenerateContent')) {
        // The router's classifiers want JSON of their schemas: the model to route to, and why.
        const route = { reasoning: 'simple', model_choice: 'flash', complexity_reasoning: 'simple', complexity_score: 1 };
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify(answer(JSON.stringify(route))));
      }
      requests.push(body);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(answer(reply(body)))}\n\n`);
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
