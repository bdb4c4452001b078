// Written by `mneme setup opencode`; `mneme setup opencode --remove` deletes it.
//
// Keeps the project's facts in OpenCode's context: they are added to the system prompt of every
// request (read once per session, again after a compaction) and to the compaction prompt, so
// a summary never drops them. Needs `mneme` on the PATH.
export const Mneme = async ({ $, directory }) => {
  // The agent's commands inherit OpenCode's environment: claims and proposals record this name.
  process.env.MNEME_AGENT ??= "opencode";
  const briefing = async (event) => {
    try {
      const out = await $`mneme context --for opencode --event ${event}`
        .cwd(directory)
        .quiet()
        .nothrow()
        .text();
      return out.trim();
    } catch {
      // The session goes on without the facts rather than failing.
      return "";
    }
  };
  const sessions = new Map();
  return {
    "experimental.chat.system.transform": async (input, output) => {
      const key = input?.sessionID ?? "";
      if (!sessions.has(key)) sessions.set(key, await briefing("session"));
      const text = sessions.get(key);
      if (text) output.system.push(text);
    },
    "experimental.session.compacting": async (input, output) => {
      const text = await briefing("compacting");
      sessions.delete(input?.sessionID ?? "");
      if (text) output.context.push(text);
    },
  };
};
