// Written by `mneme setup pi`; `mneme setup pi --remove` deletes it.
//
// Keeps the project's facts in pi's context. They are added to the system prompt, which pi
// builds again for every prompt: once in each request, and still there after a compaction.
// After `read`, `edit` or `write`, the facts about that file the session was not given follow
// the tool's result, once per session (a `pi -c` continues the session) and again after a
// compaction drops them. Runs the `mneme` on the PATH, else the project's
// node_modules/.bin/mneme; without either, the session gets one notice instead of the facts.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";

const NOT_INSTALLED =
  "mneme is not installed where this extension runs (no `mneme` on its PATH or in the project node_modules/.bin), so the approved facts of this project were not loaded into this session. Read the Markdown files in .ledger/facts/ before you change code: they outrank the conversation. Tell the user that mneme needs installing; `mneme doctor` then checks the setup.";

// How mneme heads the facts about files it adds to a tool's result.
const ABOUT_HEADING = "# Project facts about the files you touched (";

export default function mneme(pi: any) {
  // The agent's commands inherit pi's environment: claims and proposals record this name.
  process.env.MNEME_AGENT ??= "pi";
  // Looked up at each use: mneme may be installed while pi runs.
  const names = process.platform === "win32" ? ["mneme.exe", "mneme.cmd"] : ["mneme"];
  const program = (cwd: string): string | undefined => {
    for (const dir of (process.env.PATH ?? "").split(delimiter)) {
      const found = dir && names.map((n) => join(dir, n)).find((p) => existsSync(p));
      if (found) return found;
    }
    for (let dir = cwd; ; dir = dirname(dir)) {
      const local = names.map((n) => join(dir, "node_modules", ".bin", n)).find((p) => existsSync(p));
      if (local) return local;
      if (existsSync(join(dir, ".git")) || dirname(dir) === dir) return undefined;
    }
  };
  // `mneme context --for pi --event EVENT`, given `input` as JSON: its output, "" on failure
  // (the session goes on), undefined without mneme.
  const run = (cwd: string, event: string, input: object): string | undefined => {
    const mneme = program(cwd);
    if (!mneme) return undefined;
    try {
      return execFileSync(mneme, ["context", "--for", "pi", "--event", event], {
        cwd,
        input: JSON.stringify(input),
        encoding: "utf8",
        timeout: 10_000,
        stdio: ["pipe", "pipe", "ignore"],
      }).trim();
    } catch {
      return "";
    }
  };
  const session = (ctx: any) => ({ session_id: ctx.sessionManager.getSessionId() });
  // The session's facts, read at its first prompt in this process and after a compaction.
  let facts: string | undefined;
  // Whether this process continues a session that already holds what it was given.
  let resumed = false;
  pi.on("session_start", async (_event: any, ctx: any) => {
    facts = undefined;
    resumed = ctx.sessionManager.getEntries().some((e: any) => e.type === "message");
  });
  pi.on("before_agent_start", async (event: any, ctx: any) => {
    if (facts === undefined) {
      const source = resumed ? "resume" : "startup";
      facts = run(ctx.cwd, "session_start", { ...session(ctx), source }) ?? NOT_INSTALLED;
    }
    if (!facts) return undefined;
    return { systemPrompt: `${event.systemPrompt}\n\n${facts}` };
  });
  pi.on("tool_result", async (event: any, ctx: any) => {
    const file = event.input?.path;
    if (!["read", "edit", "write"].includes(event.toolName) || typeof file !== "string") return undefined;
    if (event.isError) return undefined;
    const text = run(ctx.cwd, "tool_result", { ...session(ctx), tool_input: { file_path: file } });
    if (!text) return undefined;
    return { content: [...(event.content ?? []), { type: "text", text: `\n\n${text}` }] };
  });
  pi.on("session_compact", async (event: any, ctx: any) => {
    // The compaction summarised the older turns away and kept the recent ones: the facts about
    // files the kept turns carry are still held; the others come again with their files.
    const entries = ctx.sessionManager.getBranch();
    const first = entries.findIndex((e: any) => e.id === event.compactionEntry?.firstKeptEntryId);
    const texts: string[] = [];
    const collect = (value: any): void => {
      if (typeof value === "string") {
        if (value.includes(ABOUT_HEADING)) texts.push(value);
      } else if (value && typeof value === "object") {
        Object.values(value).forEach(collect);
      }
    };
    if (first >= 0) entries.slice(first).forEach((e: any) => collect(e.message));
    run(ctx.cwd, "session_compact", { ...session(ctx), kept: texts.join("\n") });
    // The system prompt is built afresh for the next prompt, from the facts as they are then.
    facts = undefined;
    resumed = true;
  });
}
