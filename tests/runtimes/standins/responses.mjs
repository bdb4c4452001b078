// A stand-in of the OpenAI Responses API: it records every request body and answers each with
// one output item as server-sent events.
import { event, serve } from './server.mjs';

/**
 * The output item of an answer: text is an assistant message; `{ tool, args }` a call of a
 * function tool (`exec_command`); `{ tool, input }` a call of a freeform tool (`apply_patch`).
 */
function item(answer, n) {
  if (typeof answer === 'string') {
    return {
      type: 'message',
      id: `msg_${n}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: answer, annotations: [] }],
    };
  }
  const call = { id: `call_item_${n}`, call_id: `call_${n}`, name: answer.tool, status: 'completed' };
  return 'input' in answer
    ? { type: 'custom_tool_call', ...call, input: answer.input }
    : { type: 'function_call', ...call, arguments: JSON.stringify(answer.args) };
}

/**
 * Starts the stand-in; `reply(body)` gives the answer to a request (see `item`), and
 * `tokens(body)` the input tokens its usage reports, which Codex compares with its compaction
 * limit.
 */
export function startResponses(reply = () => 'OK.', tokens = () => 10) {
  return serve((url, body, res, n) => {
    const output = item(reply(body), n);
    const response = { id: `resp_${n}`, object: 'response', status: 'in_progress', model: body.model, output: [] };
    const usage = {
      input_tokens: tokens(body),
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 2,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: tokens(body) + 2,
    };
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    event(res, 'response.created', { response });
    event(res, 'response.output_item.done', { output_index: 0, item: output });
    event(res, 'response.completed', { response: { ...response, status: 'completed', output: [output], usage } });
    res.end();
    return true;
  }, '/v1');
}
