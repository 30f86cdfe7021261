// The approval page. It talks only to the JSON API (/openapi.json). The
// token comes in the link's fragment (#token=..), which no server sees; it
// is kept in this origin's localStorage (no other port of the host can
// read it, as it could read a cookie) and sent as `Authorization: Bearer`
// with every request; the CSRF token from /api/session goes with every
// POST. Text is always set with textContent, never as HTML, and
// what a call holds is shown only from the server's escaped forms (`shown`,
// `details`): a control, bidi or zero-width character in a call arrives as
// a visible escape such as \x1b or \u{202e}, never as itself.
"use strict";

let csrf = null;
const $ = (sel, root = document) => root.querySelector(sel);

const TOKEN_KEY = "toolgate-token";

// The token of the link just opened, or the one kept from an earlier visit.
function takeToken() {
  const m = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (m) {
    try { localStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1])); } catch (_) { /* kept below */ }
    history.replaceState(null, "", location.pathname + location.search);
    return decodeURIComponent(m[1]);
  }
  try { return localStorage.getItem(TOKEN_KEY); } catch (_) { return null; }
}
const token = takeToken();

function authorization() {
  return { "Authorization": "Bearer " + (token || "") };
}

async function api(path, opts = {}) {
  const headers = { "Accept": "application/json", ...authorization() };
  if (opts.body !== undefined) {
    headers["Content-Type"] = "application/json";
    headers["X-CSRF-Token"] = csrf;
  }
  const resp = await fetch(path, {
    method: opts.method || "GET",
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    credentials: "omit",
  });
  const data = await resp.json().catch(() => ({}));
  if (!resp.ok) throw new Error(data.error || ("HTTP " + resp.status));
  return data;
}

function showError(e) {
  const p = $("#error");
  p.textContent = e ? String(e.message || e) : "";
  p.hidden = !e;
}

function waited(secs) {
  if (secs == null) return "";
  if (secs < 60) return "waiting " + secs + " s";
  if (secs < 3600) return "waiting " + Math.floor(secs / 60) + " min";
  return "waiting " + Math.floor(secs / 3600) + " h " + Math.floor((secs % 3600) / 60) + " min";
}

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text != null) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function renderDetails(a, card) {
  const d = a.details || {};
  const args = $(".args", card);
  const parts = $(".parts", card);
  if (d.kind === "shell") {
    args.textContent = d.command;
    args.classList.add("command");
    const ul = el("ul");
    for (const p of d.parts || []) {
      ul.appendChild(el("li", p.argv.join(" ") + (p.read_only ? "  (read-only)" : "")));
    }
    for (const f of d.effects || []) {
      ul.appendChild(el("li", f.kind + ": " + f.target + (f.recursive ? " (recursive)" : "") + (f.delete ? " (delete)" : "")));
    }
    for (const h of d.hazards || []) ul.appendChild(el("li", "hazard: " + h));
    for (const u of d.unknowns || []) ul.appendChild(el("li", "not analysable: " + u));
    parts.appendChild(el("div", "parsed parts:", "muted"));
    parts.appendChild(ul);
  } else if (d.kind === "write") {
    args.textContent = "write " + d.path + (d.exists ? " (exists)" : " (new file)") +
      (d.total_chars != null ? ", " + d.total_chars + " characters" : "");
    const pre = el("pre", null, "diff");
    const text = d.diff != null ? d.diff : (d.preview || "");
    for (const line of text.split("\n")) {
      const cls = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "";
      pre.appendChild(el("span", line + "\n", cls));
    }
    parts.appendChild(el("div", d.diff != null ? "diff against the file on disk:" : "content:", "muted"));
    parts.appendChild(pre);
  } else {
    args.textContent = a.shown.tool + " " + a.shown.input;
  }
  $(".json", card).textContent = a.shown.input;
}

function renderCard(a) {
  const card = $("#card").content.firstElementChild.cloneNode(true);
  card.id = "approval-" + a.id;
  card.dataset.id = a.id;
  const s = a.shown;
  $(".tool", card).textContent = s.tool;
  const meta = [s.client ? "client " + s.client : "toolgate tools", s.server ? "server " + s.server : null,
                "session " + s.session, "call " + s.call_id, "id " + s.id].filter(Boolean);
  $(".meta", card).textContent = meta.join(" · ");
  $(".waited", card).textContent = waited(a.waited_secs);
  $(".reason", card).textContent = s.reason + (s.rule ? "  [" + s.rule + "]" : "  [default]");
  // The reviewer model's answer, when it left the call to a person.
  const review = $(".review", card);
  if (s.review) {
    review.textContent = "reviewer " + s.review.model + " (" + s.review.decision + ", " +
      s.review.latency_ms + " ms): " + s.review.reason;
  } else {
    review.remove();
  }
  renderDetails(a, card);
  const dg = $(".digest", card);
  dg.textContent = "digest " + a.digest + (a.digest_ok ? "" : "  — DOES NOT MATCH the stored call");
  if (!a.digest_ok) dg.classList.add("bad");
  const session = $(".session", card);
  if (!a.remember_allowed) session.remove();
  const note = $(".note", card);
  const buttons = card.querySelectorAll("button");
  const act = async (path, body) => {
    buttons.forEach(b => b.disabled = true);
    try {
      await api("/api/approvals/" + encodeURIComponent(a.id) + path, { method: "POST", body });
      showError(null);
      card.remove();
      refresh();
    } catch (e) {
      showError(e);
      buttons.forEach(b => b.disabled = false);
    }
  };
  $(".approve", card).addEventListener("click", () => act("/approve", { digest: a.digest, session: false, note: note.value || null }));
  if (a.remember_allowed) session.addEventListener("click", () => act("/approve", { digest: a.digest, session: true, note: note.value || null }));
  $(".decline", card).addEventListener("click", () => act("/decline", { note: note.value || null }));
  return card;
}

async function loadPending() {
  const { approvals } = await api("/api/approvals");
  const box = $("#pending");
  // Keep notes being typed: only cards that appeared or went away change.
  const want = new Set(approvals.map(a => a.id));
  for (const c of [...box.children]) if (!want.has(c.dataset.id)) c.remove();
  for (const a of approvals) {
    const have = document.getElementById("approval-" + a.id);
    if (have) { $(".waited", have).textContent = waited(a.waited_secs); continue; }
    box.appendChild(renderCard(a));
  }
  $("#count").textContent = approvals.length ? "(" + approvals.length + ")" : "";
  $("#empty").hidden = approvals.length > 0;
}

async function loadHistory() {
  const f = new FormData($("#filters"));
  const q = new URLSearchParams();
  for (const [k, v] of f) if (v) q.set(k, v);
  q.set("limit", "100");
  const { rows } = await api("/api/history?" + q);
  const body = $("#history tbody");
  body.replaceChildren();
  for (const r of rows) {
    const tr = el("tr");
    const s = r.shown;
    for (const [v, cls] of [[r.seq], [r.time.replace("T", " ").slice(0, 19)], [s.tool], [s.client || ""],
                            [r.decision], [r.outcome + (r.approval ? " (" + r.approval + ")" : "") +
                             (s.review ? " [reviewer: " + s.review.decision + "]" : "")],
                            [s.rule || "default"], [s.input, "input"], [s.note || ""]]) {
      tr.appendChild(el("td", String(v), cls));
    }
    body.appendChild(tr);
  }
}

async function loadVerify() {
  const v = await api("/api/verify");
  const b = $("#verify");
  b.textContent = v.intact ? "ledger intact (" + v.rows + " rows)" : "ledger NOT intact: row " + v.problem.seq;
  b.className = "badge " + (v.intact ? "ok" : "bad");
}

let pendingRefresh = null;
function refresh() {
  if (pendingRefresh) return;
  pendingRefresh = setTimeout(async () => {
    pendingRefresh = null;
    try { await Promise.all([loadPending(), loadHistory(), loadVerify()]); showError(null); }
    catch (e) { showError(e); }
  }, 50);
}

// The server's events (`text/event-stream`), read with fetch so that the
// token goes in a header (EventSource cannot send one); reconnects after a
// pause when the stream ends or fails.
async function listen(live) {
  for (;;) {
    try {
      const resp = await fetch("/api/events", {
        headers: { "Accept": "text/event-stream", ...authorization() },
        credentials: "omit",
      });
      if (!resp.ok || !resp.body) throw new Error("HTTP " + resp.status);
      live.textContent = "live"; live.className = "badge ok";
      const reader = resp.body.getReader();
      const decoder = new TextDecoder();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += decoder.decode(value, { stream: true });
        let end;
        while ((end = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          if (/^event: *change$/m.test(block)) refresh();
        }
      }
    } catch (_) { /* reconnect below */ }
    live.textContent = "reconnecting…"; live.className = "badge bad";
    await new Promise((r) => setTimeout(r, 2000));
  }
}

async function start() {
  try {
    csrf = (await api("/api/session")).csrf;
  } catch (e) {
    showError(new Error("Not signed in: open the link that `toolgate serve` printed. (" + e.message + ")"));
    return;
  }
  $("#filters").addEventListener("input", () => loadHistory().catch(showError));
  listen($("#live"));
  refresh();
  // The waited-for times tick even when nothing changes.
  setInterval(refresh, 30000);
}

start();
