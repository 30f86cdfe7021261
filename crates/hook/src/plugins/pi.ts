// toolgate's gate for Pi, written by `toolgate hook install pi`.
// Every tool call is decided by toolgate before it runs: the extension runs
// the toolgate hook with the call as JSON and blocks the call (the model
// reads why) unless the answer is allow. With a UI, a call the policy asks
// about is put to you with the call's real arguments. Anything that goes
// wrong (the hook cannot start, exits non-zero, times out, answers
// something unreadable) blocks the call too: Pi has no timeout of its own.
import { spawnSync } from "node:child_process";

const HOOK: string = __TOOLGATE_HOOK__;
const ARGS: string[] = __TOOLGATE_ARGS__;
const TIMEOUT_MS: number = __TOOLGATE_TIMEOUT_MS__;

type Answer = { decision: string; reason: string; tool_input?: Record<string, unknown> };

function decide(call: unknown): Answer {
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
  let answer: any;
  try {
    answer = JSON.parse(run.stdout || "");
  } catch {
    answer = undefined;
  }
  const reason = answer && typeof answer.reason === "string" && answer.reason ? answer.reason : "";
  if (run.error) {
    const err: any = run.error;
    const why = err.code === "ETIMEDOUT" ? `no answer within ${TIMEOUT_MS} ms` : String(err.message || err);
    return { decision: "deny", reason: `toolgate: the hook failed (${why}); the call was blocked` };
  }
  if (run.status !== 0 || !answer || typeof answer.decision !== "string") {
    const said = reason || String(run.stderr || "").trim() || `exit status ${run.status}`;
    return { decision: "deny", reason: said.startsWith("toolgate") ? said : `toolgate: the hook failed (${said}); the call was blocked` };
  }
  return answer as Answer;
}

function apply(input: Record<string, unknown>, replacement?: Record<string, unknown>) {
  if (!replacement || typeof replacement !== "object") return;
  for (const key of Object.keys(input)) delete input[key];
  Object.assign(input, replacement);
}

export default function (pi: any) {
  pi.on("tool_call", async (event: any, ctx: any) => {
    try {
      let session = "";
      try {
        session = String(ctx.sessionManager?.getSessionId?.() ?? "");
      } catch {
        session = "";
      }
      const canAsk = Boolean(ctx.hasUI);
      const answer = decide({
        session_id: session,
        cwd: String(ctx.cwd ?? ""),
        tool_name: String(event.toolName ?? ""),
        tool_input: event.input ?? {},
        call_id: event.toolCallId ?? null,
        can_ask: canAsk,
      });
      if (answer.decision === "allow") {
        apply(event.input, answer.tool_input);
        return undefined;
      }
      if (answer.decision === "ask" && canAsk) {
        const shown = JSON.stringify(answer.tool_input ?? event.input, null, 2);
        const yes = await ctx.ui.confirm(
          `toolgate: allow ${event.toolName}?`,
          `${answer.reason}\n\n${event.toolName} ${shown}`,
        );
        if (yes === true) {
          apply(event.input, answer.tool_input);
          return undefined;
        }
        return { block: true, reason: "toolgate: the person declined this call; it did not run. Do not retry it as is." };
      }
      return { block: true, reason: answer.reason || "toolgate refused the call" };
    } catch (e) {
      return { block: true, reason: `toolgate: the extension failed (${e}); the call was blocked` };
    }
  });
}
