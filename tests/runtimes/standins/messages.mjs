// A stand-in of the Anthropic Messages API: it records every request body and answers each with
// one reply, streamed or not, so a test can read exactly what a runtime sent its model.
import { event, json, serve } from './server.mjs';

/**
 * Starts the stand-in; `reply(body)` gives the answer to a request: text, or
 * `{ tool, input }` for a tool call the runtime is to make.
 */
export function startMessages(reply = () => 'OK.') {
  return serve((url, body, res, n) => {
    if (url.includes('count_tokens')) {
      json(res, { input_tokens: 10 });
      return false;
    }
    const answer = reply(body);
    const block =
      typeof answer === 'string'
        ? { type: 'text', text: answer }
        : { type: 'tool_use', id: `toolu_${n}`, name: answer.tool, input: answer.input };
    const stop = block.type === 'tool_use' ? 'tool_use' : 'end_turn';
    const message = {
      id: `msg_${n}`,
      type: 'message',
      role: 'assistant',
      model: body.model || 'stand-in',
      content: [],
      stop_reason: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    };
    if (!body.stream) {
      json(res, { ...message, content: [block], stop_reason: stop });
      return true;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    event(res, 'message_start', { message });
    if (block.type === 'text') {
      event(res, 'content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      event(res, 'content_block_delta', { index: 0, delta: { type: 'text_delta', text: block.text } });
    } else {
      event(res, 'content_block_start', { index: 0, content_block: { ...block, input: {} } });
      event(res, 'content_block_delta', {
        index: 0,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      });
    }
    event(res, 'content_block_stop', { index: 0 });
    event(res, 'message_delta', { delta: { stop_reason: stop }, usage: { output_tokens: 2 } });
    event(res, 'message_stop', {});
    res.end();
    return true;
  });
}
