// A stand-in of the Gemini API: it records every turn's request body and answers
// `streamGenerateContent` (server-sent events) and a plain `generateContent` (a compression's
// summary) with `reply(body)`, and the CLI's router, which wants JSON of its classifiers'
// schemas, with a route. Token counts are estimated from the request's size, as a compression
// compares them.
import { json, serve } from './server.mjs';

/** About as many tokens as the request has words. */
const tokens = (body) => Math.ceil(JSON.stringify(body).length / 4);

/**
 * Starts the stand-in; `reply(body)` gives the answer: text, or `{ tool, args }` for a function
 * call the CLI is to make.
 */
export function startGemini(reply = () => 'OK.') {
  return serve((url, body, res) => {
    const answer = (a) => ({
      candidates: [
        {
          content: { role: 'model', parts: [typeof a === 'string' ? { text: a } : { functionCall: { name: a.tool, args: a.args } }] },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: tokens(body), candidatesTokenCount: 2, totalTokenCount: tokens(body) + 2 },
    });
    if (url.includes(':countTokens')) {
      json(res, { totalTokens: tokens(body) });
      return false;
    }
    if (!url.includes(':streamGenerateContent')) {
      if (body.generationConfig?.responseMimeType === 'application/json') {
        const route = { reasoning: 'simple', model_choice: 'flash', complexity_reasoning: 'simple', complexity_score: 1 };
        json(res, answer(JSON.stringify(route)));
        return false;
      }
      json(res, answer(reply(body)));
      return true;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify(answer(reply(body)))}\n\n`);
    res.end();
    return true;
  });
}
