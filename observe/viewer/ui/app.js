// loom trace viewer: a traces list and a trace timeline over the JSON API
// of package observe. No framework, no external resources; every value from
// the API is put into the page as text, never as HTML.
"use strict";

(() => {
  const POLL_MS = 2000;
  const PAGE = 50;
  const app = document.getElementById("app");
  const crumbs = document.getElementById("crumbs");
  const liveBtn = document.getElementById("live");

  // ---------- small helpers ----------

  // h builds an element: h("div", {class: "x", onclick: f}, child, "text", …).
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "class") el.className = v;
      else if (k === "text") el.textContent = v;
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    append(el, children);
    return el;
  }
  function append(el, children) {
    for (const c of children.flat(Infinity)) {
      if (c === undefined || c === null || c === false) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }
  function svg(path, size = 12) {
    const ns = "http://www.w3.org/2000/svg";
    const s = document.createElementNS(ns, "svg");
    s.setAttribute("width", size); s.setAttribute("height", size); s.setAttribute("viewBox", "0 0 12 12");
    const p = document.createElementNS(ns, "path");
    p.setAttribute("d", path); p.setAttribute("fill", "none"); p.setAttribute("stroke", "currentColor");
    p.setAttribute("stroke-width", "1.6"); p.setAttribute("stroke-linecap", "round"); p.setAttribute("stroke-linejoin", "round");
    s.append(p);
    return s;
  }

  async function api(path) {
    const res = await fetch(path, { headers: { Accept: "application/json" } });
    let body = null;
    try { body = await res.json(); } catch (_) { /* not JSON */ }
    if (!res.ok) throw new Error((body && body.error) || `${res.status} ${res.statusText}`);
    return body;
  }

  const nf = new Intl.NumberFormat();
  function fmtDuration(ms) {
    if (ms === undefined || ms === null || isNaN(ms)) return "–";
    if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`;
    if (ms < 10) return `${ms.toFixed(2)} ms`;
    if (ms < 1000) return `${ms.toFixed(0)} ms`;
    if (ms < 60000) return `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
    const m = Math.floor(ms / 60000), s = Math.round((ms % 60000) / 1000);
    return `${m} m ${s} s`;
  }
  function fmtTokens(n) {
    if (!n) return "0";
    if (n < 10000) return nf.format(n);
    if (n < 1e6) return `${(n / 1000).toFixed(1)}k`;
    return `${(n / 1e6).toFixed(2)}M`;
  }
  function fmtCost(usd, complete = true) {
    const pre = complete ? "" : "≥ ";
    if (!usd) return complete ? "$0" : "–";
    if (usd < 0.01) return `${pre}$${usd.toPrecision(2)}`;
    return `${pre}$${usd.toFixed(usd < 10 ? 3 : 2)}`;
  }
  function fmtAgo(iso) {
    const t = new Date(iso).getTime(), s = (Date.now() - t) / 1000;
    if (s < 5) return "just now";
    if (s < 60) return `${Math.floor(s)} s ago`;
    if (s < 3600) return `${Math.floor(s / 60)} min ago`;
    if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
    if (s < 7 * 86400) return `${Math.floor(s / 86400)} d ago`;
    return new Date(iso).toLocaleDateString();
  }
  const fmtTime = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
  const shortID = (id) => (id || "").slice(0, 8);

  function statusPill(status) {
    const labels = { ok: "OK", error: "Error", limit: "Limit", running: "Running", waiting: "Waiting", continued: "Continued", no_answer: "No computed answer", eval: "Eval", unset: "Unset" };
    return h("span", { class: `pill ${status}`, text: labels[status] || status });
  }

  // evalScore sums up an evaluation's scores: "pass@1 66.7% · 2 of 3
  // samples passed".
  function evalScore(ev) {
    const at = ev.pass_at || {};
    const k = "1" in at ? "1" : Object.keys(at).sort((a, b) => a - b)[0];
    const pass = k ? `pass@${k} ${Math.round(at[k] * 1000) / 10}%` : "";
    return [pass, `${ev.passed} of ${ev.samples} sample${ev.samples === 1 ? "" : "s"} passed`].filter(Boolean).join(" · ");
  }

  // parseJSON returns the parsed value, or undefined when s is not JSON
  // (captured values may be truncated mid-document).
  function parseJSON(s) {
    if (typeof s !== "string") return s;
    try { return JSON.parse(s); } catch (_) { return undefined; }
  }

  // ---------- syntax colouring (builds spans, never HTML strings) ----------

  function jsonNode(value) {
    const out = h("pre", { class: "block" });
    const text = JSON.stringify(value, null, 2);
    const re = /("(?:\\.|[^"\\])*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b/g;
    let last = 0, m;
    while ((m = re.exec(text))) {
      out.append(text.slice(last, m.index));
      if (m[1]) {
        out.append(h("span", { class: m[2] ? "t-key" : "t-str", text: m[1] }));
        if (m[2]) out.append(m[2]);
      } else if (m[3]) out.append(h("span", { class: "t-num", text: m[3] }));
      else out.append(h("span", { class: "t-lit", text: m[4] }));
      last = re.lastIndex;
    }
    out.append(text.slice(last));
    return out;
  }

  // valueNode shows a captured value: pretty JSON when it parses, text when not.
  function valueNode(raw) {
    if (raw === undefined || raw === null || raw === "") return h("div", { class: "muted", text: "(empty)" });
    const v = typeof raw === "string" ? parseJSON(raw) : raw;
    if (v === undefined) return h("div", { class: "text-block", text: raw });
    if (typeof v === "string") return h("div", { class: "text-block", text: v });
    return jsonNode(v);
  }

  const JS_KEYWORDS = new Set(("break case catch class const continue debugger default delete do else export extends finally for function if import in instanceof let new return super switch this throw try typeof var void while with yield async await of").split(" "));
  const JS_LITERALS = new Set(["true", "false", "null", "undefined", "NaN", "Infinity"]);

  function highlightJS(line, el) {
    const re = /(\/\/.*$)|(\/\*.*?\*\/)|("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`(?:\\.|[^`\\])*`)|(\b\d+(?:\.\d+)?\b)|([A-Za-z_$][\w$]*)/g;
    let last = 0, m;
    while ((m = re.exec(line))) {
      el.append(line.slice(last, m.index));
      if (m[1] || m[2]) el.append(h("span", { class: "t-com", text: m[0] }));
      else if (m[3]) el.append(h("span", { class: "t-str", text: m[0] }));
      else if (m[4]) el.append(h("span", { class: "t-num", text: m[0] }));
      else if (JS_KEYWORDS.has(m[5])) el.append(h("span", { class: "t-kw", text: m[0] }));
      else if (JS_LITERALS.has(m[5])) el.append(h("span", { class: "t-lit", text: m[0] }));
      else el.append(m[0]);
      last = re.lastIndex;
    }
    el.append(line.slice(last));
  }

  function codeNode(code) {
    const lines = String(code).replace(/\n$/, "").split("\n");
    const grid = h("div", { class: "code" });
    const ln = h("div", { class: "ln" }), src = h("div", { class: "src" });
    lines.forEach((line, i) => {
      ln.append(h("div", { text: String(i + 1) }));
      const row = h("div");
      highlightJS(line, row);
      if (!line) row.append("\u200b");
      src.append(row);
    });
    grid.append(ln, src);
    return h("pre", { class: "block code-wrap", "data-testid": "code" }, grid);
  }

  // ---------- span classification ----------

  function spanType(sp) {
    const op = sp.attributes["gen_ai.operation.name"];
    if (sp.name === "sandbox.run" || sp.attributes["loom.sandbox.executor"] !== undefined) return "sandbox";
    if (op === "invoke_agent") return "agent";
    if (op === "chat" || op === "text_completion" || op === "generate_content") return "chat";
    if (op === "execute_tool") return "tool";
    return "other";
  }
  const AGENT_KIND = { ai: "LLM agent", func: "function", tool: "tool agent", workflow: "workflow" };
  const TYPE_LABEL = { agent: "agent", chat: "LLM", tool: "tool", sandbox: "sandbox", other: "span" };

  // subject is what a span is about: the agent, model or tool name.
  function subject(sp, type) {
    const a = sp.attributes;
    if (type === "agent") return a["gen_ai.agent.name"] || sp.name.replace(/^invoke_agent\s+/, "");
    if (type === "chat") return a["gen_ai.request.model"] || sp.name.replace(/^chat\s+/, "");
    if (type === "tool") return a["gen_ai.tool.name"] || sp.name.replace(/^execute_tool\s+/, "");
    return sp.name;
  }

  function spanMeta(sp, type) {
    const a = sp.attributes;
    if (type === "chat") {
      const parts = [];
      if (a["gen_ai.provider.name"]) parts.push(a["gen_ai.provider.name"]);
      const i = a["gen_ai.usage.input_tokens"], o = a["gen_ai.usage.output_tokens"];
      if (i !== undefined || o !== undefined) parts.push(`${fmtTokens(i || 0)} → ${fmtTokens(o || 0)} tok`);
      return parts.join(" · ");
    }
    if (type === "sandbox") {
      const parts = [a["loom.sandbox.executor"]];
      parts.push(a["loom.sandbox.outcome"] === "error" ? (a["loom.sandbox.error_kind"] || "error") : "ok");
      return parts.filter(Boolean).join(" · ");
    }
    if (type === "agent") return AGENT_KIND[a["loom.agent.kind"]] || a["loom.agent.kind"] || "";
    if (type === "tool") return a["loom.tool.is_error"] ? "error result" : "";
    return sp.kind !== "internal" ? sp.kind : "";
  }

  const isError = (sp) => sp.status === "error";

  // ---------- router ----------

  let view = null; // {kind, stop()}

  function route() {
    if (view && view.stop) view.stop();
    view = null;
    const hash = location.hash.replace(/^#/, "") || "/";
    const m = hash.match(/^\/trace\/([0-9a-fA-F]{32})(?:\/([0-9a-fA-F]{16}))?/);
    if (m) view = traceView(m[1].toLowerCase(), m[2] && m[2].toLowerCase());
    else view = listView(new URLSearchParams(hash.split("?")[1] || ""));
  }

  let live = localStorage.getItem("loom.live") !== "off";
  function setLive(on) {
    live = on;
    localStorage.setItem("loom.live", on ? "on" : "off");
    liveBtn.setAttribute("aria-pressed", on ? "true" : "false");
    liveBtn.querySelector(".live-label").textContent = on ? "Live" : "Paused";
  }
  liveBtn.addEventListener("click", () => setLive(!live));
  setLive(live);

  function setCrumbs(...items) {
    crumbs.replaceChildren();
    for (const it of items) {
      crumbs.append(h("span", { class: "sep", text: "/" }), it);
    }
  }

  // ---------- traces list ----------

  function listView(params) {
    const state = {
      status: params.get("status") || "",
      agent: params.get("agent") || "",
      cursors: [], // cursors of the pages before this one
      before: "",
      next: "",
      seq: 0,
      traces: [],
      pending: 0, // new runs seen while not on the first page
      loading: true,
      error: "",
    };
    let timer = 0, stopped = false, fresh = new Set();
    setCrumbs(h("span", { class: "here", text: "Runs" }));

    const matches = (t) => (!state.status || t.status === state.status) && (!state.agent || t.agent === state.agent);

    function syncHash() {
      const q = new URLSearchParams();
      if (state.status) q.set("status", state.status);
      if (state.agent) q.set("agent", state.agent);
      const want = "#/" + (q.toString() ? "?" + q : "");
      if (location.hash !== want) history.replaceState(null, "", want);
    }

    async function load() {
      state.loading = true;
      render();
      const q = new URLSearchParams({ limit: PAGE });
      if (state.status) q.set("status", state.status);
      if (state.agent) q.set("agent", state.agent);
      if (state.before) q.set("before", state.before);
      try {
        const page = await api("/api/traces?" + q);
        if (stopped) return;
        Object.assign(state, { traces: page.traces, next: page.next || "", seq: page.seq, error: "", loading: false, pending: 0 });
      } catch (e) {
        state.error = e.message;
        state.loading = false;
      }
      render();
      loadAgents();
      loadStats();
    }

    let stats = null;
    async function loadStats() {
      const q = new URLSearchParams();
      if (state.status) q.set("status", state.status);
      if (state.agent) q.set("agent", state.agent);
      try {
        stats = await api("/api/stats?" + q);
        if (!stopped) render();
      } catch (_) { /* the list still works */ }
    }

    let agents = [];
    async function loadAgents() {
      try {
        const res = await api("/api/agents");
        if (stopped) return;
        agents = res.agents;
        if (head) controls(); // the drop-down's names and counts, in place
      } catch (_) { /* the list still works */ }
    }

    async function poll() {
      if (stopped) return;
      if (live && !state.loading && !state.error && state.seq !== undefined) {
        try {
          const page = await api(`/api/traces?since=${state.seq}&limit=200`);
          if (stopped) return;
          if (page.traces.length) {
            merge(page.traces);
            loadAgents();
            loadStats();
          }
          state.seq = page.seq;
        } catch (_) { /* try again next tick */ }
      }
      timer = setTimeout(poll, POLL_MS);
    }

    // merge folds changed traces into the list: updates rows in place, adds
    // new runs at the top of the first page, drops rows that stopped matching.
    function merge(changed) {
      let touched = false;
      for (const t of changed) {
        const i = state.traces.findIndex((x) => x.trace_id === t.trace_id);
        if (i >= 0) {
          if (matches(t)) state.traces[i] = t; else state.traces.splice(i, 1);
          touched = true;
        } else if (matches(t)) {
          if (state.before) { state.pending++; continue; }
          state.traces.push(t);
          fresh.add(t.trace_id);
          touched = true;
        }
      }
      if (!touched && !state.pending) return;
      state.traces.sort((a, b) => (a.start_time < b.start_time ? 1 : a.start_time > b.start_time ? -1 : (a.trace_id < b.trace_id ? 1 : -1)));
      if (!state.before && state.traces.length > PAGE) {
        state.traces.length = PAGE;
        state.next = state.next || "more"; // exact cursor comes with the next full load
      }
      render();
    }

    function go(delta) {
      if (delta > 0 && state.next) {
        state.cursors.push(state.before);
        state.before = state.next === "more" ? cursorOf(state.traces[state.traces.length - 1]) : state.next;
      } else if (delta < 0) {
        state.before = state.cursors.pop() || "";
      } else {
        state.cursors = [];
        state.before = "";
      }
      load();
    }
    const cursorOf = (t) => `${BigInt(Date.parse(t.start_time)) * 1000000n + BigInt(nanosOf(t.start_time))}.${t.trace_id}`;
    function nanosOf(iso) {
      // Sub-millisecond digits of an RFC 3339 time, as nanoseconds.
      const m = iso.match(/\.(\d+)/);
      if (!m) return 0;
      const frac = (m[1] + "000000000").slice(0, 9);
      return Number(frac.slice(3));
    }

    // The filters are made once and updated in place, and the page
    // around them is kept: a live update must not close an open agent
    // drop-down or take a button from under the pointer.
    let page = null, head = null, countEl = null, agentSel = null, statusBtns = [], rest = null;
    function controls() {
      if (!head) {
        statusBtns = [["", "All"], ["ok", "OK"], ["no_answer", "No answer"], ["error", "Error"], ["limit", "Limit"], ["waiting", "Waiting"], ["eval", "Eval"], ["running", "Running"]].map(([v, label]) =>
          h("button", {
            type: "button", "data-status": v, text: label,
            onclick: () => { state.status = v; syncHash(); go(0); },
          }));
        agentSel = h("select", {
          class: "agent-filter", "aria-label": "Agent",
          onchange: (e) => { state.agent = e.target.value; syncHash(); go(0); },
        });
        countEl = h("span", { class: "count" });
        head = h("div", { class: "list-head" },
          h("h1", {}, "Runs"), countEl,
          h("div", { class: "filters" }, h("div", { class: "seg", role: "group", "aria-label": "Status" }, statusBtns), agentSel));
      }
      for (const b of statusBtns) b.setAttribute("aria-pressed", state.status === b.dataset.status ? "true" : "false");
      const want = [["", "All agents"], ...agents.map((a) => [a.name, `${a.name} (${a.traces})`])];
      if (state.agent && !agents.some((a) => a.name === state.agent)) want.push([state.agent, state.agent]);
      const opts = agentSel.options;
      if (opts.length === want.length && want.every(([v], i) => opts[i].value === v)) {
        want.forEach(([, text], i) => { if (opts[i].text !== text) opts[i].text = text; });
      } else {
        agentSel.replaceChildren(...want.map(([v, text]) => h("option", { value: v, text })));
      }
      agentSel.value = state.agent;
      countEl.textContent = state.loading ? "" : countText();
      return head;
    }

    function render() {
      controls();
      let body;
      if (state.error) body = h("div", { class: "error-box", text: "Could not load traces: " + state.error });
      else if (state.loading && !state.traces.length) body = h("div", { class: "card loading", text: "Loading…" });
      else if (!state.traces.length) body = h("div", { class: "card" }, emptyState());
      else body = h("div", { class: "card table-card" }, table());

      const pager = h("div", { class: "pager" },
        h("button", { class: "btn", type: "button", disabled: !state.before, onclick: () => go(-1) }, "← Newer"),
        h("span", { text: state.before ? `Page ${state.cursors.length + 1}` : "" }),
        h("button", { class: "btn", type: "button", disabled: !state.next, onclick: () => go(1) }, "Older →"));

      const banner = state.pending
        ? h("div", { class: "banner", onclick: () => go(0) }, `${state.pending} new run${state.pending > 1 ? "s" : ""} — show latest`)
        : null;

      if (!page) {
        rest = h("div", {});
        page = h("div", { class: "list-page" }, head, rest);
      }
      if (app.firstChild !== page || app.childNodes.length !== 1) app.replaceChildren(page);
      rest.replaceChildren(...[statsStrip(), banner, body, state.traces.length ? pager : null].filter(Boolean));
      fresh.clear();
    }

    function statsStrip() {
      if (!stats || !stats.traces) return null;
      // A waiting run (paused for an answer) has neither succeeded nor
      // failed: it is left out of the success rate, like a running one.
      // The earlier parts of a resumed run are left out too: the run's
      // last part carries its outcome.
      // An evaluation is not an agent run: its scores are its outcome.
      const finished = stats.traces - stats.running - (stats.waiting || 0) - (stats.continued || 0) - (stats.evals || 0);
      const rate = finished ? Math.round((stats.ok / finished) * 1000) / 10 : null;
      const card = (k, v, sub, cls) => h("div", { class: `kpi ${cls || ""}` },
        h("div", { class: "k", text: k }), h("div", { class: "v", text: v }), sub ? h("div", { class: "sub", text: sub }) : null);
      return h("div", { class: "kpis", "data-testid": "stats" },
        card("Runs", nf.format(stats.traces), [stats.running ? `${stats.running} running` : "", stats.waiting ? `${stats.waiting} waiting` : "", stats.evals ? `${stats.evals} eval${stats.evals > 1 ? "s" : ""}` : ""].filter(Boolean).join(" · ") || `since ${fmtAgo(stats.since)}`),
        card("Success rate", rate === null ? "–" : `${rate}%`, `${nf.format(stats.ok)} ok · ${nf.format(stats.errors + stats.limits + (stats.no_answer || 0))} failed`,
          rate !== null && rate < 90 ? "warn" : ""),
        card("Avg duration", fmtDuration(stats.avg_duration_ms), `${nf.format(stats.model_calls)} LLM calls · ${nf.format(stats.tool_calls)} tool calls`),
        card("Tokens", fmtTokens(stats.input_tokens + stats.output_tokens), `${fmtTokens(stats.input_tokens)} in · ${fmtTokens(stats.output_tokens)} out`),
        card("Cost", fmtCost(stats.cost_usd), "estimated from list prices"));
    }

    function countText() {
      const n = state.traces.length;
      if (state.before || state.next) return `${n} runs on this page`;
      return n === 1 ? "1 run" : `${n} runs`;
    }

    function emptyState() {
      const filtered = state.status || state.agent;
      return h("div", { class: "empty-state" },
        h("h2", { text: filtered ? "No runs match these filters" : "No runs recorded yet" }),
        filtered
          ? h("p", {}, "Try another status or agent.")
          : [
            h("p", {}, "Runs appear here as soon as a program records them to this trace database — for example ",
              h("code", { text: "go run ./examples/workflow-code-execution" }), "."),
            h("p", {}, "Embedders: build providers with ", h("code", { text: "observe.Setup" }),
              " and pass the tracer provider to loom on the context."),
          ]);
    }

    function table() {
      const rows = state.traces.map((t) => {
        const input = t.eval
          ? h("div", { class: "eval-score", "data-testid": "eval-score", text: evalScore(t.eval) })
          : t.input_preview
          ? h("div", { class: "run-input", title: t.input_preview, text: t.input_preview })
          : h("div", { class: "run-input empty", text: "input not captured" });
        const calls = h("div", {},
          h("div", { class: "calls" },
            h("b", { text: String(t.model_calls) }), t.model_calls === 1 ? " LLM call" : " LLM calls",
            t.tool_calls ? [" · ", h("b", { text: String(t.tool_calls) }), t.tool_calls === 1 ? " tool" : " tools"] : null),
          t.errors && (t.status === "ok" || t.status === "no_answer")
            ? h("div", { class: "recovered", title: "The run succeeded, but some of its steps failed", text: `${t.errors} failed step${t.errors > 1 ? "s" : ""}` })
            : null);
        const tr = h("tr", {
          class: fresh.has(t.trace_id) ? "fresh" : "", "data-trace": t.trace_id, tabindex: 0,
          onclick: () => { location.hash = `#/trace/${t.trace_id}`; },
          onkeydown: (e) => { if (e.key === "Enter") location.hash = `#/trace/${t.trace_id}`; },
        },
        h("td", {}, statusPill(t.status)),
        h("td", { class: "run-cell" },
          h("div", { class: "run-agent" }, h("span", { text: t.eval ? `Eval ${t.eval.dataset}` : t.agent || t.root_name || "(unnamed)" }), h("span", { class: "id", text: shortID(t.trace_id) }),
            t.resumed ? h("span", { class: "resumed", title: `continues run ${t.run_id}, started in another process`, text: "resumed" }) : null),
          input,
          t.error && t.status !== "ok" ? h("div", { class: t.status === "waiting" ? "run-waiting" : "run-error", title: t.error, text: t.error }) : null),
        h("td", { class: "when", title: fmtTime(t.start_time), text: fmtAgo(t.start_time) }),
        h("td", { class: "num", text: t.status === "running" ? "…" : fmtDuration(t.duration_ms) }),
        h("td", { class: "num", title: `${nf.format(t.input_tokens)} in · ${nf.format(t.output_tokens)} out · ${nf.format(t.cached_tokens)} cached`, text: fmtTokens(t.total_tokens) }),
        h("td", { class: "num", title: t.cost_complete ? "estimated" : "some model calls have no known price", text: fmtCost(t.cost_usd, t.cost_complete) }),
        h("td", { class: "col-calls" }, calls));
        return tr;
      });
      return h("table", { class: "traces" },
        h("colgroup", {},
          h("col", { class: "col-status" }), h("col", {}), h("col", { class: "col-when" }), h("col", { class: "col-dur" }),
          h("col", { class: "col-tok" }), h("col", { class: "col-cost" }), h("col", { class: "col-calls" })),
        h("thead", {}, h("tr", {},
          h("th", { text: "Status" }), h("th", { text: "Run" }), h("th", { text: "Started" }),
          h("th", { class: "num", text: "Duration" }), h("th", { class: "num", text: "Tokens" }),
          h("th", { class: "num", text: "Cost" }), h("th", { class: "col-calls", text: "Calls" }))),
        h("tbody", {}, rows));
    }

    load();
    timer = setTimeout(poll, POLL_MS);
    // Keep "3 min ago" honest.
    const tick = setInterval(() => { if (!state.loading && !state.error) render(); }, 30000);
    return { stop() { stopped = true; clearTimeout(timer); clearInterval(tick); } };
  }

  // ---------- trace detail ----------

  function traceView(traceID, spanID) {
    let data = null, selected = spanID || "", collapsed = new Set(), stopped = false, timer = 0, lastTotal = 1;
    setCrumbs(h("a", { href: "#/", text: "Runs" }), h("span", { class: "here mono", text: shortID(traceID) }));
    app.replaceChildren(h("div", { class: "loading", text: "Loading trace…" }));

    async function load() {
      try {
        const d = await api(`/api/traces/${traceID}`);
        if (stopped) return;
        data = d;
        if (!selected || !d.spans.some((s) => s.span_id === selected)) {
          const root = d.spans.find((s) => !d.spans.some((p) => p.span_id === s.parent_span_id));
          selected = root ? root.span_id : "";
        }
        render();
      } catch (e) {
        if (stopped) return;
        app.replaceChildren(h("div", { class: "error-box", text: "Could not load this trace: " + e.message }),
          h("p", { class: "back" }, h("a", { href: "#/", text: "← Back to all runs" })));
        return;
      }
      if (data.summary.status === "running") timer = setTimeout(() => { if (live) load(); else timer = setTimeout(load, POLL_MS); }, POLL_MS);
    }

    function tree() {
      const byID = new Map(data.spans.map((s) => [s.span_id, s]));
      const kids = new Map();
      const roots = [];
      for (const s of data.spans) {
        if (s.parent_span_id && byID.has(s.parent_span_id)) {
          if (!kids.has(s.parent_span_id)) kids.set(s.parent_span_id, []);
          kids.get(s.parent_span_id).push(s);
        } else roots.push(s);
      }
      const rows = [];
      const walk = (s, depth) => {
        const children = kids.get(s.span_id) || [];
        rows.push({ span: s, depth, hasKids: children.length > 0 });
        if (!collapsed.has(s.span_id)) for (const c of children) walk(c, depth + 1);
      };
      for (const r of roots) walk(r, 0);
      return rows;
    }

    // runParts links the traces of one loom run that went on in other
    // processes (paused for an answer, or crashed, then resumed).
    function runParts(parts, current) {
      if (parts.length < 2) return null;
      const i = parts.findIndex((p) => p.trace_id === current);
      return h("nav", { class: "run-parts", "data-testid": "run-parts" },
        h("span", { text: `Run ${parts[0].run_id}: part ${i + 1} of ${parts.length}, across processes — ` }),
        parts.map((p, k) => [k ? " → " : "", p.trace_id === current
          ? h("b", { "data-part": k + 1, text: `part ${k + 1} (${p.status})` })
          : h("a", { href: `#/trace/${p.trace_id}`, "data-part": k + 1, text: `part ${k + 1} (${p.status})` })]));
    }

    function render() {
      const sum = data.summary;
      const total = data.spans.reduce((m, s) => Math.max(m, s.offset_ms + s.duration_ms), Math.max(sum.duration_ms, 0.001));
      lastTotal = total;
      const rows = tree();
      const sel = data.spans.find((s) => s.span_id === selected);

      // Header
      const stats = h("div", { class: "stats" },
        stat("Started", fmtTime(sum.start_time)),
        stat("Duration", sum.status === "running" ? "running…" : fmtDuration(sum.duration_ms)),
        stat("Tokens", [fmtTokens(sum.total_tokens), h("small", { text: `  ${fmtTokens(sum.input_tokens)} in · ${fmtTokens(sum.output_tokens)} out` })]),
        stat("Cost", fmtCost(sum.cost_usd, sum.cost_complete)),
        stat("LLM calls", String(sum.model_calls)),
        stat("Tool calls", String(sum.tool_calls)),
        stat("Spans", sum.errors ? [String(sum.spans), h("small", { text: `  ${sum.errors} failed` })] : String(sum.spans)));
      const ev = sum.eval;
      const head = h("section", { class: "card trace-head" },
        h("div", { class: "trace-title" },
          h("h1", { text: ev ? `Eval ${ev.dataset}` : sum.agent || sum.root_name || "Trace" }),
          statusPill(sum.status),
          h("span", { class: "tid", text: traceID }),
          h("button", { class: "copy", type: "button", title: "Copy trace id", onclick: () => navigator.clipboard && navigator.clipboard.writeText(traceID), text: "copy" })),
        stats,
        ev
          ? h("div", { class: "eval-facts" },
            h("div", { class: "eval-score", text: evalScore(ev) }),
            h("div", { class: "eval-setup", text: [ev.model && `model ${ev.model}`, ev.solver && `solver ${ev.solver}`, `${ev.problems} problem${ev.problems === 1 ? "" : "s"} × ${ev.samples_per_problem} sample${ev.samples_per_problem === 1 ? "" : "s"}`].filter(Boolean).join(" · ") }))
          : h("div", { class: "io" }, ioBox("Input", sum.input_preview), ioBox("Output", sum.output_preview)),
        sum.error && sum.status !== "ok" ? h("div", { class: sum.status === "waiting" ? "trace-waiting" : "trace-error", text: sum.error }) : null,
        runParts(data.parts || [], traceID));

      // Waterfall
      const ticks = niceTicks(total);
      const axis = h("div", { class: "wf-axis" },
        h("div", { class: "axis-name", text: `${data.spans.length} spans` }),
        h("div", { class: "axis-track" }, ticks.map((t) => {
          const el = h("div", { class: "tick", text: t === 0 ? "0" : fmtDuration(t) });
          el.style.left = `${(t / total) * 100}%`;
          return el;
        })));
      const wfRows = rows.map(({ span: s, depth, hasKids }) => {
        const type = spanType(s);
        const caret = h("button", {
          class: `wf-caret ${hasKids ? (collapsed.has(s.span_id) ? "closed" : "") : "leaf"}`, type: "button",
          "aria-label": collapsed.has(s.span_id) ? "Expand" : "Collapse",
          onclick: (e) => { e.stopPropagation(); if (collapsed.has(s.span_id)) collapsed.delete(s.span_id); else collapsed.add(s.span_id); render(); },
        }, svg("M3 4.5l3 3 3-3"));
        const name = h("div", { class: "wf-name" },
          caret,
          h("span", { class: `chip ${type}`, text: TYPE_LABEL[type] }),
          h("span", { class: "wf-label", title: s.name, text: subject(s, type) }),
          h("span", { class: "wf-meta", text: spanMeta(s, type) }),
          isError(s) ? h("span", { class: "wf-err", title: s.status_message || "error", text: "!" }) : null);
        name.style.paddingLeft = `${8 + depth * 16}px`;
        const left = (s.offset_ms / total) * 100, width = (s.duration_ms / total) * 100;
        const bar = h("div", { class: `wf-bar ${isError(s) ? "error" : type}` });
        bar.style.left = `${left}%`;
        bar.style.width = `${width}%`;
        const dur = h("div", { class: "wf-dur", text: fmtDuration(s.duration_ms) });
        dur.style.left = `${Math.min(left + width, 100)}%`;
        const track = h("div", { class: "wf-track" }, ticks.map((t) => {
          const g = h("div", { class: "wf-gridline" });
          g.style.left = `${(t / total) * 100}%`;
          return g;
        }), bar, dur);
        return h("div", {
          class: `wf-row${s.span_id === selected ? " selected" : ""}`, "data-span": s.span_id, "data-type": type,
          role: "treeitem", "aria-selected": s.span_id === selected ? "true" : "false",
          onclick: () => select(s.span_id),
        }, name, track);
      });
      const legend = h("div", { class: "legend" }, ["agent", "chat", "tool", "sandbox"].map((t) => h("span", { class: `chip ${t}`, text: TYPE_LABEL[t] })));
      const waterfall = h("section", { class: "card pane" },
        h("div", { class: "pane-head" }, "Timeline", legend),
        h("div", { class: "pane-body" }, h("div", { class: "wf", role: "tree", id: "waterfall" }, axis, wfRows)));

      const detail = h("section", { class: "card pane" },
        h("div", { class: "pane-head" }, "Span"),
        h("div", { class: "pane-body", id: "detail-scroll" }, sel ? spanDetail(sel, total) : h("div", { class: "loading", text: "Select a span" })));

      const keepScroll = app.querySelector("#waterfall") && app.querySelector("#waterfall").parentElement.scrollTop;
      app.replaceChildren(h("div", { class: "trace-page" }, head, ev ? evalSamples() : null, h("div", { class: "split" }, waterfall, detail)));
      if (keepScroll) document.getElementById("waterfall").parentElement.scrollTop = keepScroll;
      setCrumbs(h("a", { href: "#/", text: "Runs" }), h("span", { class: "here", text: `${ev ? `eval ${ev.dataset}` : sum.agent || "trace"} · ${shortID(traceID)}` }));
    }

    // evalSamples lists an evaluation's samples (its spans with a
    // loom.eval.problem attribute) with their class and score; a row
    // selects the sample's span, under which the solver's run is.
    function evalSamples() {
      const samples = data.spans.filter((s) => s.attributes && "loom.eval.problem" in s.attributes);
      const num = (v) => (typeof v === "number" ? v : Number(v) || 0);
      samples.sort((a, b) => String(a.attributes["loom.eval.problem"]).localeCompare(String(b.attributes["loom.eval.problem"]), undefined, { numeric: true })
        || num(a.attributes["loom.eval.sample"]) - num(b.attributes["loom.eval.sample"]));
      const rows = samples.map((s) => {
        const a = s.attributes, cls = a["loom.eval.class"] || "unfinished", passed = cls === "passed";
        const score = "loom.eval.score" in a ? String(a["loom.eval.score"]) : passed ? "1" : "0";
        return h("tr", {
          "data-sample": s.span_id, tabindex: 0,
          onclick: () => select(s.span_id),
          onkeydown: (e) => { if (e.key === "Enter") select(s.span_id); },
        },
        h("td", { class: "mono", text: String(a["loom.eval.problem"]) }),
        h("td", { class: "num", text: String(num(a["loom.eval.sample"]) + 1) }),
        h("td", {}, h("span", { class: `pill ${passed ? "ok" : "error"}`, text: cls })),
        h("td", { class: "num", text: score }),
        h("td", { class: "num", text: fmtDuration(s.duration_ms) }),
        h("td", { class: "sample-msg", title: s.status_message || "", text: passed ? "" : s.status_message || "" }));
      });
      return h("section", { class: "card eval-samples", "data-testid": "eval-samples" },
        h("div", { class: "pane-head" }, `Samples (${samples.length})`),
        h("table", { class: "traces" },
          h("thead", {}, h("tr", {},
            h("th", { text: "Problem" }), h("th", { class: "num", text: "Sample" }), h("th", { text: "Class" }),
            h("th", { class: "num", text: "Score" }), h("th", { class: "num", text: "Duration" }), h("th", { text: "Message" }))),
          h("tbody", {}, rows)));
    }

    // select changes the selected span without rebuilding the timeline,
    // which matters for runs with thousands of spans.
    function select(id) {
      selected = id;
      history.replaceState(null, "", `#/trace/${traceID}/${id}`);
      const wf = document.getElementById("waterfall"), pane = document.getElementById("detail-scroll");
      const sp = data.spans.find((s) => s.span_id === id);
      if (!wf || !pane || !sp) { render(); return; }
      for (const row of wf.querySelectorAll(".wf-row.selected")) {
        row.classList.remove("selected");
        row.setAttribute("aria-selected", "false");
      }
      const row = wf.querySelector(`.wf-row[data-span="${id}"]`);
      if (row) {
        row.classList.add("selected");
        row.setAttribute("aria-selected", "true");
        row.scrollIntoView({ block: "nearest" });
      }
      pane.replaceChildren(spanDetail(sp, lastTotal));
      pane.scrollTop = 0;
    }

    function onKey(e) {
      if (!data || e.target.closest("input, select, textarea")) return;
      if (e.key === "Escape") { location.hash = "#/"; return; }
      if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
      const rows = tree();
      const i = rows.findIndex((r) => r.span.span_id === selected);
      const j = Math.max(0, Math.min(rows.length - 1, i + (e.key === "ArrowDown" ? 1 : -1)));
      if (rows[j]) { e.preventDefault(); select(rows[j].span.span_id); }
    }
    document.addEventListener("keydown", onKey);

    load();
    return { stop() { stopped = true; clearTimeout(timer); document.removeEventListener("keydown", onKey); } };
  }

  function stat(k, v) {
    return h("div", { class: "stat" }, h("span", { class: "k", text: k }), h("span", { class: "v" }, v));
  }
  function ioBox(k, v) {
    return h("div", { class: "io-box" }, h("div", { class: "k", text: k }),
      v ? h("div", { class: "v", title: v, text: v }) : h("div", { class: "v empty", text: "not captured" }));
  }

  function niceTicks(total) {
    const target = 5, raw = total / target;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => total / s <= target + 1) || raw;
    const out = [];
    for (let t = 0; t <= total * 1.0001; t += step) out.push(t);
    return out;
  }

  // ---------- span detail panel ----------

  function facts(pairs) {
    const dl = h("dl", { class: "facts" });
    for (const [k, v, cls] of pairs) {
      if (v === undefined || v === null || v === "") continue;
      dl.append(h("dt", { text: k }), h("dd", { class: cls || "" }, v));
    }
    return dl;
  }
  function section(title, ...body) {
    const flat = body.flat().filter(Boolean);
    if (!flat.length) return null;
    return h("div", { class: "section" }, h("h3", {}, title), flat);
  }

  function spanDetail(sp, total) {
    const a = sp.attributes, type = spanType(sp);
    const head = h("div", {},
      h("div", { class: "detail-title" },
        h("span", { class: `chip ${type}`, text: TYPE_LABEL[type] }),
        h("h2", { text: subject(sp, type) }),
        statusPill(sp.status === "error" ? "error" : "ok")),
      h("div", { class: "detail-sub", text: `${sp.name} · span ${sp.span_id}${sp.parent_span_id ? " · parent " + sp.parent_span_id : ""}` }));

    const timing = [
      ["Starts at", `+${fmtDuration(sp.offset_ms)}`],
      ["Duration", `${fmtDuration(sp.duration_ms)}  (${((sp.duration_ms / total) * 100).toFixed(1)}% of the run)`],
    ];
    let body = [];
    if (type === "agent") body = agentDetail(a, timing);
    else if (type === "chat") body = chatDetail(a, timing);
    else if (type === "tool") body = toolDetail(a, timing);
    else if (type === "sandbox") body = sandboxDetail(a, timing);
    else body = [facts(timing)];

    const errorBox = sp.status === "error" && sp.status_message
      ? h("div", { class: "section" }, h("div", { class: "callout error" }, h("div", { class: "title", text: "Error" }), h("pre", { text: sp.status_message })))
      : null;

    const events = (sp.events || []).length
      ? section("Events", h("div", { class: "events" }, sp.events.map((e) => eventNode(e, sp))))
      : null;

    const keys = Object.keys(a).sort();
    const attrs = h("div", { class: "section" }, h("details", { class: "attrs" },
      h("summary", { text: `All attributes (${keys.length})` }),
      h("table", { class: "kv" }, h("tbody", {}, keys.map((k) => h("tr", {},
        h("td", { text: k }),
        h("td", { text: typeof a[k] === "string" ? a[k] : JSON.stringify(a[k]) })))))));

    return h("div", { class: "detail", "data-span": sp.span_id }, head, errorBox, body, events, attrs);
  }

  function eventNode(e, sp) {
    const at = e.time ? fmtDuration(new Date(e.time) - new Date(sp.start_time)) : "";
    if (e.name === "exception") {
      const ea = e.attributes || {};
      return h("div", { class: "callout error event" },
        h("div", { class: "title" }, ea["exception.type"] || "exception", h("span", { class: "when", text: at ? `+${at}` : "" })),
        h("pre", { text: ea["exception.message"] || "" }),
        ea["exception.stacktrace"] ? h("details", {}, h("summary", { text: "Stack trace" }), h("pre", { text: ea["exception.stacktrace"] })) : null);
    }
    return h("div", { class: "event" }, h("b", { text: e.name }), h("span", { class: "when", text: at ? `+${at}` : "" }),
      e.attributes ? jsonNode(e.attributes) : null);
  }

  function tokensText(a) {
    const i = a["gen_ai.usage.input_tokens"], o = a["gen_ai.usage.output_tokens"], c = a["gen_ai.usage.cache_read.input_tokens"];
    if (i === undefined && o === undefined) return undefined;
    let s = `${nf.format(i || 0)} in · ${nf.format(o || 0)} out`;
    if (c) s += ` · ${nf.format(c)} cached`;
    return s;
  }
  const costText = (a) => (a["loom.cost.usd"] === undefined ? undefined : fmtCost(Number(a["loom.cost.usd"])));

  function agentDetail(a, timing) {
    return [
      facts([
        ["Agent", a["gen_ai.agent.name"]],
        ["Kind", AGENT_KIND[a["loom.agent.kind"]] || a["loom.agent.kind"]],
        ["Description", a["gen_ai.agent.description"]],
        ["Outcome", a["loom.outcome"] || a["loom.workflow.outcome"]],
        ...timing,
        ["Tokens (run)", tokensText(a)],
        ["Cost (run)", costText(a)],
        ["Run id", a["loom.run.id"], "mono"],
        ["Error type", a["error.type"], "mono"],
      ]),
      section("Input", a["loom.agent.input"] !== undefined ? valueNode(a["loom.agent.input"]) : h("div", { class: "muted", text: "Not captured — enable content capture to record it." })),
      section("Output", a["loom.agent.output"] !== undefined ? valueNode(a["loom.agent.output"]) : h("div", { class: "muted", text: "Not captured." })),
    ];
  }

  const PARAMS = [
    ["Temperature", "gen_ai.request.temperature"], ["Top p", "gen_ai.request.top_p"],
    ["Presence penalty", "gen_ai.request.presence_penalty"], ["Frequency penalty", "gen_ai.request.frequency_penalty"],
    ["Max tokens", "gen_ai.request.max_tokens"], ["Seed", "gen_ai.request.seed"],
  ];

  function chatDetail(a, timing) {
    const reasons = a["gen_ai.response.finish_reasons"];
    const stop = a["gen_ai.request.stop_sequences"];
    return [
      facts([
        ["Model", a["gen_ai.request.model"]],
        ["Provider", a["gen_ai.provider.name"]],
        ...timing,
        ["Tokens", tokensText(a)],
        ["Cost", costText(a)],
        ["Finish reason", Array.isArray(reasons) ? reasons.join(", ") : reasons],
        ["Tools offered", a["loom.tools"] !== undefined ? String(a["loom.tools"]) : undefined],
        ...PARAMS.map(([k, key]) => [k, a[key] !== undefined ? String(a[key]) : undefined]),
        ["Stop sequences", Array.isArray(stop) ? stop.map((s) => JSON.stringify(s)).join(" ") : undefined, "mono"],
        ["Error type", a["error.type"], "mono"],
      ]),
      section("System instructions", a["gen_ai.system_instructions"] !== undefined ? messagesNode(a["gen_ai.system_instructions"], "system") : null),
      section("Input messages", a["gen_ai.input.messages"] !== undefined ? messagesNode(a["gen_ai.input.messages"]) : h("div", { class: "muted", text: "Not captured — enable content capture to record prompts." })),
      section("Output", a["gen_ai.output.messages"] !== undefined ? messagesNode(a["gen_ai.output.messages"]) : null),
    ];
  }

  function messagesNode(raw, defaultRole) {
    const v = parseJSON(raw);
    if (!Array.isArray(v)) {
      if (typeof raw === "string" && v === undefined) return h("div", { class: "text-block", text: raw });
      if (typeof v === "string") return h("div", { class: "msgs" }, h("div", { class: `msg ${defaultRole || ""}` }, h("div", { class: "txt", text: v })));
      return valueNode(raw);
    }
    return h("div", { class: "msgs" }, v.map((m) => {
      if (typeof m === "string") return h("div", { class: `msg ${defaultRole || ""}` }, h("div", { class: "txt", text: m }));
      const role = m.role || defaultRole || "";
      const parts = Array.isArray(m.parts) ? m.parts : (m.content !== undefined ? [{ type: "text", content: m.content }] : []);
      return h("div", { class: `msg ${role}` }, h("div", { class: "role", text: role }), parts.map(partNode));
    }));
  }

  function partNode(p) {
    if (p.type === "text") return h("div", { class: "part txt", text: typeof p.content === "string" ? p.content : JSON.stringify(p.content) });
    if (p.type === "tool_call") {
      return h("div", { class: "part toolcall" },
        h("div", { class: "head" }, "calls ", h("code", { text: p.name || "?" }), p.id ? h("span", { class: "muted", text: `  ${p.id}` }) : null),
        argsNode(p.arguments));
    }
    if (p.type === "tool_call_response") {
      return h("div", { class: "part toolcall" },
        h("div", { class: "head" }, "result", p.id ? h("span", { class: "muted", text: ` of ${p.id}` }) : null),
        valueNode(p.response !== undefined ? p.response : p.result));
    }
    return h("div", { class: "part" }, valueNode(p));
  }

  // argsNode shows tool arguments; a "code" field is shown as code.
  function argsNode(args) {
    const v = typeof args === "string" ? parseJSON(args) : args;
    if (v && typeof v === "object" && !Array.isArray(v) && typeof v.code === "string") {
      const rest = Object.assign({}, v);
      delete rest.code;
      return [codeNode(v.code), Object.keys(rest).length ? jsonNode(rest) : null];
    }
    return valueNode(args);
  }

  function toolDetail(a, timing) {
    const isErr = a["loom.tool.is_error"] === true;
    return [
      facts([
        ["Tool", a["gen_ai.tool.name"]],
        ["Call id", a["gen_ai.tool.call.id"], "mono"],
        ["Type", a["gen_ai.tool.type"]],
        ["Result", isErr ? h("span", { class: "pill error", text: "error sent to the model" }) : h("span", { class: "pill ok", text: "ok" })],
        ...timing,
      ]),
      section("Arguments", a["gen_ai.tool.call.arguments"] !== undefined ? argsNode(a["gen_ai.tool.call.arguments"]) : h("div", { class: "muted", text: "Not captured." })),
      section(isErr ? "Error result" : "Result", a["gen_ai.tool.call.result"] !== undefined ? valueNode(a["gen_ai.tool.call.result"]) : h("div", { class: "muted", text: "Not captured." })),
    ];
  }

  function sandboxDetail(a, timing) {
    const failed = a["loom.sandbox.outcome"] === "error";
    const logs = parseJSON(a["loom.sandbox.logs"]);
    const result = a["loom.sandbox.result"];
    let resultNode = null;
    if (result !== undefined) {
      const v = parseJSON(result);
      resultNode = (v !== undefined && typeof v === "object" && v !== null)
        ? jsonNode(v)
        : h("div", { class: "result-box", "data-testid": "sandbox-result" }, h("pre", { text: v === undefined ? String(result) : typeof v === "string" ? v : JSON.stringify(v) }));
    }
    return [
      facts([
        ["Executor", a["loom.sandbox.executor"]],
        ["Outcome", failed ? h("span", { class: "pill error", text: a["loom.sandbox.error_kind"] || "error" }) : h("span", { class: "pill ok", text: "ok" })],
        ["Run time", a["loom.sandbox.duration_ms"] !== undefined ? fmtDuration(Number(a["loom.sandbox.duration_ms"])) : undefined],
        ...timing,
        ["Code size", a["loom.sandbox.code_bytes"] !== undefined ? `${nf.format(a["loom.sandbox.code_bytes"])} bytes` : undefined],
        ["Console lines", a["loom.sandbox.log_lines"] !== undefined ? String(a["loom.sandbox.log_lines"]) : undefined],
      ]),
      section("Code", a["loom.sandbox.code"] !== undefined ? codeNode(a["loom.sandbox.code"]) : h("div", { class: "muted", text: "Not captured — enable content capture to record the code." })),
      section("Result", resultNode || (failed ? null : h("div", { class: "muted", text: "Not captured." }))),
      section("Console", consoleNode(logs, a["loom.sandbox.logs"])),
    ];
  }

  function consoleNode(logs, raw) {
    if (raw === undefined) return null;
    const box = h("div", { class: "console", "data-testid": "console" });
    if (!Array.isArray(logs)) { box.append(h("div", { class: "line" }, h("span", { class: "cmsg", text: String(raw) }))); return box; }
    if (!logs.length) box.append(h("div", { class: "none", text: "no console output" }));
    for (const l of logs) {
      const level = (l && l.level) || "log";
      box.append(h("div", { class: `line ${level}` }, h("span", { class: "lvl", text: level }), h("span", { class: "cmsg", text: l && l.text !== undefined ? String(l.text) : JSON.stringify(l) })));
    }
    return box;
  }

  // ---------- start ----------

  api("/api/info").then((info) => {
    const el = document.getElementById("db-path");
    el.textContent = info.db;
    el.title = `Trace database ${info.db} · loom ${info.version}`;
  }).catch(() => {});
  window.addEventListener("hashchange", route);
  route();
})();
