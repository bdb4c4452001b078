// A stand-in of the OpenAI Chat Completions API: it records every request body and answers each
// with one assistant message or one tool call, streamed as server-sent events when asked to.
import { json, serve } from './server.mjs';

/** The prompt on which [`readsWhenAsked`] answers with a tool call. */
export const READ_PROMPT = 'please read the pool code';

/** A reply for `startChat`: the tool call `call` when the turn's prompt is [`READ_PROMPT`], else `otherwise`. */
export function readsWhenAsked(call, otherwise) {
  return (body) => {
    const last = body.messages.at(-1);
    return last.role === 'user' && JSON.stringify(last).includes(READ_PROMPT) ? call : otherwise;
  };
}

/**
 * Starts the stand-in; `reply(body)` gives the answer to a request: text, or `{ tool, args }` for
 * a function call. `tokens(body)` gives the prompt tokens its usage reports, which runtimes
 * compare with their compaction threshold.
 */
export function startChat(reply = () => 'OK.', tokens = () => 10) {
  return serve((url, body, res, n) => {
    if (!url.includes('/chat/completions')) {
      json(res, { object: 'list', data: [{ id: body.model ?? 'stand-in', object: 'model' }] });
      return false;
    }
    const answer = reply(body);
    const message =
      typeof answer === 'string'
        ? { role: 'assistant', content: answer }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: `call_${n}`, type: 'function', function: { name: answer.tool, arguments: JSON.stringify(answer.args) } }],
          };
    const finish = typeof answer === 'string' ? 'stop' : 'tool_calls';
    const usage = { prompt_tokens: tokens(body), completion_tokens: 2, total_tokens: tokens(body) + 2 };
    const base = { id: `chatcmpl-${n}`, created: 1_800_000_000, model: body.model };
    if (!body.stream) {
      json(res, { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage });
      return true;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta, finish_reason = null, extra = {}) =>
      res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`);
    if (typeof answer === 'string') {
      chunk({ role: 'assistant', content: answer });
    } else {
      chunk({ role: 'assistant', content: null, tool_calls: message.tool_calls.map((c, index) => ({ index, ...c })) });
    }
    chunk({}, finish, { usage });
    res.write('data: [DONE]\n\n');
    res.end();
    return true;
  }, '/v1');
}
