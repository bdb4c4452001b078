// A stand-in of the Anthropic Messages API on 127.0.0.1: it records every request body and
// answers each with one short streamed text reply (or JSON, or a token count), so a test can
// read exactly what a runtime sent its model.
import http from 'node:http';

/**
 * Starts the stand-in; `reply(body)` gives the answer to a request: text, or
 * `{ tool, input }` for a tool call the runtime is to make.
 */
export async function startMessages(reply = () => 'OK.') {
  const requests = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : {};
      if (req.url.includes('count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ input_tokens: 10 }));
      }
      requests.push(body);
      const answer = reply(body);
      const block =
        typeof answer === 'string'
          ? { type: 'text', text: answer }
          : { type: 'tool_use', id: `toolu_${requests.length}`, name: answer.tool, input: answer.input };
      const message = {
        id: `msg_${requests.length}`,
        type: 'message',
        role: 'assistant',
        model: body.model || 'stand-in',
        content: [],
        stop_reason: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      };
      const stop = block.type === 'tool_use' ? 'tool_use' : 'end_turn';
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ ...message, content: [block], stop_reason: stop }));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      event('message_start', { message });
      if (block.type === 'text') {
        event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: block.text } });
      } else {
        event('content_block_start', { index: 0, content_block: { ...block, input: {} } });
        event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
      }
      event('content_block_stop', { index: 0 });
      event('message_delta', { delta: { stop_reason: stop }, usage: { output_tokens: 2 } });
      event('message_stop', {});
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
