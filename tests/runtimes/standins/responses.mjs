// A stand-in of the OpenAI Responses API: it records every request body and answers each with
// one assistant message as server-sent events.
import { event, serve } from './server.mjs';

/** Starts the stand-in; `reply(body)` gives the text of the answer to a request. */
export function startResponses(reply = () => 'OK.') {
  return serve((url, body, res, n) => {
    const item = {
      type: 'message',
      id: `msg_${n}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: reply(body), annotations: [] }],
    };
    const response = { id: `resp_${n}`, object: 'response', status: 'in_progress', model: body.model, output: [] };
    const usage = {
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 2,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 12,
    };
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    event(res, 'response.created', { response });
    event(res, 'response.output_item.done', { output_index: 0, item });
    event(res, 'response.completed', { response: { ...response, status: 'completed', output: [item], usage } });
    res.end();
    return true;
  }, '/v1');
}
