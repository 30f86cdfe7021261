// toolgate's gate for OpenCode, written by `toolgate hook install opencode`.
// Every tool call is decided by toolgate before it runs: the plugin runs the
// toolgate hook with the call as JSON and throws (which blocks the call and
// tells the model why) unless the answer is allow. Anything that goes wrong
// (the hook cannot start, exits non-zero, times out, answers something
// unreadable) blocks the call too. No import of OpenCode's plugin package:
// it cannot be installed offline, and none is needed.
import { spawnSync } from "node:child_process";

const HOOK = __TOOLGATE_HOOK__;
const ARGS = __TOOLGATE_ARGS__;
const TIMEOUT_MS = __TOOLGATE_TIMEOUT_MS__;

function ask(call) {
  let run;
  try {
    run = spawnSync(HOOK, ARGS, {
      input: JSON.stringify(call),
      encoding: "utf8",
      timeout: TIMEOUT_MS,
      killSignal: "SIGKILL",
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (e) {
    return { decision: "deny", reason: `toolgate: the hook could not run (${e}); the call was blocked` };
  }
  let answer;
  try {
    answer = JSON.parse(run.stdout || "");
  } catch {
    answer = undefined;
  }
  const reason = answer && typeof answer.reason === "string" && answer.reason ? answer.reason : "";
  if (run.error) {
    const why = run.error.code === "ETIMEDOUT" ? `no answer within ${TIMEOUT_MS} ms` : String(run.error.message || run.error);
    return { decision: "deny", reason: `toolgate: the hook failed (${why}); the call was blocked` };
  }
  if (run.status !== 0 || !answer || typeof answer.decision !== "string") {
    const said = reason || String(run.stderr || "").trim() || `exit status ${run.status}`;
    return { decision: "deny", reason: said.startsWith("toolgate") ? said : `toolgate: the hook failed (${said}); the call was blocked` };
  }
  return answer;
}

export const Toolgate = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    const answer = ask({
      session_id: String(input.sessionID ?? ""),
      cwd: String(directory ?? ""),
      tool_name: String(input.tool ?? ""),
      tool_input: output.args ?? {},
      call_id: input.callID ?? null,
      can_ask: false,
    });
    if (answer.decision === "allow") {
      if (answer.tool_input && typeof answer.tool_input === "object") {
        for (const key of Object.keys(output.args)) delete output.args[key];
        Object.assign(output.args, answer.tool_input);
      }
      return;
    }
    throw new Error(answer.reason || "toolgate refused the call");
  },
});
