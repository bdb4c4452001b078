// Loads the plugin `mneme setup opencode` wrote and calls its hooks the way OpenCode does, with
// a stand-in for Bun's `$` that runs the command for real. Prints what each hook added.
import { execFileSync } from "node:child_process";
import { pathToFileURL } from "node:url";

const [plugin, directory] = process.argv.slice(2);

const $ = (strings, ...values) => {
  const argv = strings
    .flatMap((s, i) => [...s.split(/\s+/), ...(i < values.length ? [String(values[i])] : [])])
    .filter(Boolean);
  let cwd = process.cwd();
  const shell = {
    cwd: (dir) => ((cwd = dir), shell),
    quiet: () => shell,
    nothrow: () => shell,
    text: async () => execFileSync(argv[0], argv.slice(1), { cwd, encoding: "utf8" }),
  };
  return shell;
};

const mod = await import(pathToFileURL(plugin).href);
const hooks = await mod.Mneme({ $, directory });
const first = { system: [] };
await hooks["experimental.chat.system.transform"]({ sessionID: "s1" }, first);
const again = { system: [] };
await hooks["experimental.chat.system.transform"]({ sessionID: "s1" }, again);
const compacting = { context: [] };
await hooks["experimental.session.compacting"]({ sessionID: "s1" }, compacting);
console.log(JSON.stringify({ agent: process.env.MNEME_AGENT, first: first.system, again: again.system, compacting: compacting.context }));
