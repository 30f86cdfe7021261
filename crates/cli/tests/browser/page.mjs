// Drives the approval page in Debian's chromium, headless, over CDP
// (playwright-core's connectOverCDP; it downloads no browser of its own).
//
//   node page.mjs   with the environment:
//     PLAYWRIGHT_CORE  path of the playwright-core package
//     CHROMIUM         the chromium executable
//     LINK             the link `toolgate serve` printed (with its token)
//     APPROVAL         the approval id whose card to act on
//     ACTION           approve | decline
//     NOTE             the note typed before acting (optional)
//     SCREENSHOT       where to save a PNG of the page before acting
//
// Prints one JSON line: {"url", "cardText", "cookie", "after"}; exits 1 on
// any failure.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const { chromium } = require(process.env.PLAYWRIGHT_CORE);
const env = (k) => {
  const v = process.env[k];
  if (v === undefined) throw new Error("missing " + k);
  return v;
};

const profile = mkdtempSync(join(tmpdir(), "toolgate-chromium-"));
const proc = spawn(env("CHROMIUM"), [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  "--remote-debugging-port=0", `--user-data-dir=${profile}`, "about:blank",
], { stdio: ["ignore", "ignore", "pipe"] });

const endpoint = await new Promise((resolve, reject) => {
  let buf = "";
  const timer = setTimeout(() => reject(new Error("chromium did not start: " + buf)), 30000);
  proc.stderr.on("data", (d) => {
    buf += d;
    const m = buf.match(/DevTools listening on (ws:\/\/\S+)/);
    if (m) { clearTimeout(timer); resolve(m[1]); }
  });
  proc.on("exit", (code) => reject(new Error("chromium exited " + code + ": " + buf)));
});

let status = 0;
try {
  const browser = await chromium.connectOverCDP(endpoint);
  const context = browser.contexts()[0];
  const page = await context.newPage();
  // A phone's viewport: the page must be readable there.
  await page.setViewportSize({ width: 390, height: 844 });
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  await page.goto(env("LINK"));
  const card = `#approval-${env("APPROVAL")}`;
  await page.waitForSelector(card, { timeout: 30000 });
  const cardText = await page.textContent(card);
  await page.screenshot({ path: env("SCREENSHOT"), fullPage: true });
  const cookies = await context.cookies();
  if (process.env.NOTE) await page.fill(`${card} .note`, process.env.NOTE);
  const action = env("ACTION");
  if (action !== "approve" && action !== "decline") throw new Error("ACTION: " + action);
  await page.click(`${card} .${action}`);
  await page.waitForSelector(card, { state: "detached", timeout: 30000 });
  const error = await page.textContent("#error");
  console.log(JSON.stringify({
    url: page.url(),
    cardText,
    cookie: cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite })),
    after: { error, pageErrors },
  }));
  await browser.close();
} catch (e) {
  console.error(String(e && e.stack || e));
  status = 1;
} finally {
  proc.kill("SIGKILL");
  try { rmSync(profile, { recursive: true, force: true }); } catch {}
}
process.exit(status);
