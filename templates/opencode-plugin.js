// Written by `mneme setup opencode`; `mneme setup opencode --remove` deletes it.
//
// Keeps the project's facts in OpenCode's context: they are added once to the system prompt of
// every request an agent works from, read once per session and again after a compaction (so
// the facts approved meanwhile arrive). After a tool reads or edits a file, the facts about it
// that the session was not given follow the tool's output, once per session and again after a
// compaction. Title and compaction requests get none: a summary that
// copied them would carry a second copy, stale once the facts change. Runs the `mneme` on the
// PATH, else the project's node_modules/.bin/mneme (`npm install -D mneme-ledger`); without
// either the session goes on, and OpenCode's log says why.
import { existsSync } from "node:fs";
import { join } from "node:path";

export const Mneme = async ({ $, directory, worktree, client }) => {
  // The agent's commands inherit OpenCode's environment: claims and proposals record this name.
  process.env.MNEME_AGENT ??= "opencode";
  const log = (message) => {
    try {
      Promise.resolve(
        client?.app?.log?.({ body: { service: "mneme", level: "warn", message } }),
      ).catch(() => {});
    } catch {
      // Logging is a courtesy: the session never depends on it.
    }
  };
  // Looked up at each briefing: mneme may be installed while OpenCode runs.
  const mneme = () => {
    const onPath = globalThis.Bun?.which?.("mneme");
    if (onPath) return onPath;
    const local = join(worktree || directory, "node_modules", ".bin", "mneme");
    return existsSync(local) ? local : "mneme";
  };
  // Runs `mneme context --for opencode --event EVENT`, with `input` as JSON on stdin when given;
  // its output, or "" (and why, in OpenCode's log).
  const run = async (event, input) => {
    try {
      const command = input === undefined
        ? $`${mneme()} context --for opencode --event ${event}`
        : $`${mneme()} context --for opencode --event ${event} < ${Buffer.from(JSON.stringify(input))}`;
      const out = await command.cwd(directory).quiet().nothrow();
      if (out.exitCode !== 0) {
        const why = out.stderr.toString().trim() || `exit code ${out.exitCode}`;
        log(`the project facts were not loaded: ${why}. Install mneme on OpenCode's PATH or in the project (npm install -D mneme-ledger); \`mneme doctor\` checks the setup.`);
        return "";
      }
      return out.stdout.toString().trim();
    } catch (error) {
      log(`the project facts were not loaded: ${error}`);
      return "";
    }
  };
  const briefing = () => run("session");
  const sessions = new Map();
  return {
    "experimental.chat.system.transform": async (input, output) => {
      // OpenCode gives the agents that work an <env> block; its title, compaction and summary
      // requests have none.
      if (!output.system.some((part) => part.includes("<env>"))) return;
      const key = input?.sessionID ?? "";
      if (!sessions.has(key)) sessions.set(key, await briefing());
      const text = sessions.get(key);
      if (text) output.system.push(text);
    },
    // After a tool that reads or edits one file: the facts about it the session was not given
    // yet, after the tool's output, where they stay in the conversation.
    "tool.execute.after": async (input, output) => {
      const file = input?.args?.filePath;
      if (!["read", "edit", "write"].includes(input?.tool) || typeof file !== "string") return;
      if (typeof output?.output !== "string") return;
      const text = await run("tool.execute.after", {
        session_id: input.sessionID,
        tool_input: { file_path: file },
      });
      if (text) output.output += `\n\n${text}`;
    },
    "experimental.session.compacting": async (input) => {
      sessions.delete(input?.sessionID ?? "");
      // The compaction drops what the tools brought: the files bring it again.
      await run("session.compacting", { session_id: input?.sessionID });
    },
  };
};
