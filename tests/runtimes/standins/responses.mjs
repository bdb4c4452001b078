// A stand-in of the OpenAI Responses API on 127.0.0.1: it records every request body and answers
// each with one assistant message as server-sent events.
import http from 'node:http';

/** Starts the stand-in; `reply(body)` gives the text of the answer to a request. */
export async function startResponses(reply = () => 'OK.') {
  const requests = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : {};
      requests.push(body);
      const n = requests.length;
      const item = {
        type: 'message',
        id: `msg_${n}`,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: reply(body), annotations: [] }],
      };
      const response = { id: `resp_${n}`, object: 'response', status: 'in_progress', model: body.model, output: [] };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      event('response.created', { response });
      event('response.output_item.done', { output_index: 0, item });
      event('response.completed', {
        response: {
          ...response,
          status: 'completed',
          output: [item],
          usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 12 },
        },
      });
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
