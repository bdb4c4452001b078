// A stand-in of the Gemini API: it records every turn's request body and answers
// `streamGenerateContent` (server-sent events) with one short reply, and `generateContent` (the
// CLI's router, which wants JSON of its classifiers' schemas) with a route.
import { json, serve } from './server.mjs';

/** Starts the stand-in; `reply(body)` gives the text of a turn's answer. */
export function startGemini(reply = () => 'OK.') {
  return serve((url, body, res) => {
    const answer = (text) => ({
      candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 },
    });
    if (url.includes(':countTokens')) {
      json(res, { totalTokens: 10 });
      return false;
    }
    if (!url.includes(':streamGenerateContent')) {
      const route = { reasoning: 'simple', model_choice: 'flash', complexity_reasoning: 'simple', complexity_score: 1 };
      json(res, answer(JSON.stringify(route)));
      return false;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify(answer(reply(body)))}\n\n`);
    res.end();
    return true;
  });
}
