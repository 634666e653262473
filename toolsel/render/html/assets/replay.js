/* `toolsel replay --format html`: summary, per-tool table, problems and per-session
   timelines, filtered by session, tool and kind of problem, a page of rows at a time. */
"use strict";

const PAGE_ROWS = 200;
const PROBLEM_ROWS = 100;
const KINDS = [
  ["error", "error result"], ["unanswered", "unanswered"], ["interrupted", "interrupted"],
  ["orphan", "orphan result"], ["duplicate", "duplicate call"], ["conflicting", "conflicting call"],
  ["duplicate-result", "duplicate result"], ["violation", "registry violation"],
  ["copy", "copy (resumed session)"], ["unreadable", "unreadable line"], ["unread", "unread tool record"],
];
const KIND_LABEL = Object.fromEntries(KINDS);

function buildSessions(data) {
  return data.sessions.map((s, index) => buildSession(data.replay.files[index], s, index));
}

function buildSession(file, session, index) {
  const unanswered = new Map(file.unanswered_calls.map(u => [u.id, u]));
  const duplicates = new Map(file.duplicate_calls.map(d => [d.id, d]));
  const duplicateResults = new Map(file.duplicate_results.map(d => [d.id, d]));
  const violations = new Map();
  for (const v of file.violations) {
    if (!violations.has(v.id)) violations.set(v.id, []);
    violations.get(v.id).push(v);
  }
  const failures = new Map(file.failed_calls.map(f => [f.line + " " + f.id, f.message]));
  const rows = session.calls.map(([line, tool, id, resultLine, latency, error, copied, parent, bytes]) => {
    const kinds = [];
    if (error === 1) kinds.push("error");
    const open = resultLine === null ? unanswered.get(id) : undefined;
    if (open) kinds.push(open.interrupted ? "interrupted" : "unanswered");
    const dup = duplicates.get(id);
    if (dup) kinds.push(dup.kind === "conflicting" ? "conflicting" : "duplicate");
    if (duplicateResults.has(id)) kinds.push("duplicate-result");
    if (violations.has(id)) kinds.push("violation");
    if (copied === 1) kinds.push("copy");
    const messages = (violations.get(id) || []).map(v => v.rule + ": " + v.message);
    const failure = error === 1 ? failures.get(resultLine + " " + id) : undefined;
    if (failure) messages.unshift(failure);  // why it failed, as its result said
    return {file: index, line, tool: session.tools[tool], id, resultLine, latency, bytes: bytes ?? null,
            kinds, parent, messages, children: []};
  });
  const extra = [
    ...file.orphan_results.map(o => ({line: o.line, tool: null, id: o.id, kinds: ["orphan"],
      messages: ["a result whose id no call has"]})),
    ...file.unreadable_lines.map(u => ({line: u.line, tool: null, id: null, kinds: ["unreadable"], messages: [u.error]})),
    ...file.unread_tool_records.map(u => ({line: u.line, tool: null, id: null, kinds: ["unread"],
      messages: ["tool-call-like content that toolsel does not read (" + u.where + ")"]})),
  ].map(r => Object.assign({file: index, resultLine: null, latency: null, bytes: null, parent: null, children: []}, r));
  const byId = new Map(rows.map(r => [r.id, r]));
  const top = [];
  for (const row of rows) {
    const parent = row.parent !== null ? byId.get(row.parent) : undefined;
    if (parent && parent !== row) parent.children.push(row); else top.push(row);
  }
  top.push(...extra);
  top.sort((a, b) => a.line - b.line);
  const ordered = [];
  const walk = (row, depth) => {
    row.depth = depth;
    ordered.push(row);
    for (const child of row.children) walk(child, depth + 1);
  };
  for (const row of top) walk(row, 0);
  return {index, path: file.path, file, rows: ordered, omitted: session.omitted, agentId: session.agent_id};
}

function problemsOf(session) {
  const f = session.file, out = [];
  const add = (kind, line, tool, id, text) => out.push({file: session.index, kind, line, tool, id, text});
  for (const u of f.unreadable_lines) add("unreadable", u.line, null, null, "unreadable line: " + u.error);
  for (const u of f.unanswered_calls) add(u.interrupted ? "interrupted" : "unanswered", u.line, u.tool, u.id,
    `unanswered call ${u.id} (${u.tool})` + (u.interrupted ? " at the end: interrupted" : ""));
  for (const o of f.orphan_results) add("orphan", o.line, null, o.id, `orphan result ${o.id}: no call has this id`);
  for (const d of f.duplicate_calls) add(d.kind === "conflicting" ? "conflicting" : "duplicate", d.lines[d.lines.length - 1], null, d.id,
    `${d.kind} duplicate call ${d.id} (lines ${d.lines.join(", ")})`);
  for (const d of f.duplicate_results) add("duplicate-result", d.lines[d.lines.length - 1], null, d.id,
    `duplicate result ${d.id} (lines ${d.lines.join(", ")})`);
  for (const v of f.violations) add("violation", v.line, v.tool, v.id, `${v.rule}: ${v.message}`);
  for (const u of f.unread_tool_records) add("unread", u.line, null, null, `tool-call-like content that toolsel does not read (${u.where})`);
  out.sort((a, b) => a.line - b.line);
  return out;
}

/** A session's failed calls: where each result said it failed, the tool, and its message. */
function failuresOf(session) {
  return session.file.failed_calls.map(f => ({file: session.index, line: f.line, tool: f.tool, id: f.id,
    resultLine: f.line, message: f.message}));
}

function renderReplay(data) {
  const app = document.getElementById("app");
  const summary = data.replay.summary;
  const sessions = buildSessions(data);
  const problems = sessions.flatMap(problemsOf);
  const failures = sessions.flatMap(failuresOf);
  const state = {session: "all", tool: "all", kind: "all", page: 0, problemPage: 0, failedPage: 0, target: null};

  app.append(el("h1", null, "toolsel replay"));
  app.append(el("p", {class: "sub"}, `${count(summary.files)} transcript file${summary.files === 1 ? "" : "s"}, ${count(summary.calls)} tool calls`));
  app.append(el("div", {class: "cards", id: "summary"},
    card("calls", summary.calls, "calls"), card("results", summary.results, "results"),
    card("paired", summary.paired, "paired"), card("error results", summary.error_results, "error_results", "bad"),
    card("unanswered", summary.unanswered_calls, "unanswered_calls", "warn"),
    card("orphan results", summary.orphan_results, "orphan_results", "bad"),
    card("duplicate calls", summary.duplicate_calls, "duplicate_calls", "warn"),
    card("duplicate results", summary.duplicate_results, "duplicate_results", "warn"),
    card("violations", summary.violations, "violations", "bad"),
    card("copied calls", summary.copied_calls, "copied_calls"),
    card("unreadable lines", summary.unreadable_lines, "unreadable_lines", "bad")));

  app.append(el("h2", null, "Files"));
  app.append(table(
    [{label: "file"}, {label: "format", narrow: true}, {label: "calls", num: true}, {label: "paired", num: true, narrow: true},
     {label: "open", num: true}, {label: "orphans", num: true}, {label: "dup", num: true, narrow: true}, {label: "errors", num: true},
     {label: "violations", num: true, narrow: true}],
    data.replay.files.map((f, i) => el("tr", {"data-file": i},
      cell(sessionLink(i, f.path), {wrap: true, title: f.path}), cell(f.format, {narrow: true}),
      cell(count(f.calls), {num: true, key: "calls"}), cell(count(f.paired), {num: true, key: "paired", narrow: true}),
      cell(count(f.unanswered_calls.length), {num: true, key: "unanswered_calls"}),
      cell(count(f.orphan_results.length), {num: true, key: "orphan_results"}),
      cell(count(f.duplicate_calls.length), {num: true, key: "duplicate_calls", narrow: true}),
      cell(count(f.error_results), {num: true, key: "error_results"}),
      cell(count(f.violations.length), {num: true, key: "violations", narrow: true}))),
    {id: "files"}));
  for (const f of data.replay.files) {
    for (const note of f.notes) app.append(el("p", {class: "note wrap"}, f.path + ": " + note));
  }

  app.append(el("h2", null, "Tools"));
  const tools = Object.entries(data.tools);
  app.append(table(
    [{label: "tool"}, {label: "calls", num: true}, {label: "errors", num: true}, {label: "error rate", num: true},
     {label: "open", num: true, narrow: true}, {label: "median", num: true}, {label: "p95", num: true, narrow: true},
     {label: "result p50", num: true, narrow: true}, {label: "result p95", num: true, narrow: true},
     {label: "result total", num: true, narrow: true}],
    tools.map(([name, t]) => el("tr", {"data-tool": name},
      cell(name, {wrap: true}), cell(count(t.calls), {num: true, key: "calls"}), cell(count(t.errors), {num: true, key: "errors"}),
      cell(percent(t.error_rate), {num: true}), cell(count(t.unanswered), {num: true, narrow: true}),
      cell(seconds(t.median_latency_s), {num: true}), cell(seconds(t.p95_latency_s), {num: true, narrow: true}),
      ...["median", "p95", "total"].map(k => cell(t.result_bytes ? bytesText(t.result_bytes[k]) : "–",
        {num: true, narrow: true, key: "result_" + k})))),
    {id: "tools"}));
  app.append(whyCallsFail(tools));

  const sessionSelect = optionList(el("select", {id: "filter-session"}), [["all", "every session"],
    ...sessions.map(s => [String(s.index), (s.agentId ? "↳ " : "") + s.path])]);
  const toolSelect = optionList(el("select", {id: "filter-tool"}), [["all", "every tool"],
    ...tools.map(([name]) => [name, name])]);
  const kindSelect = optionList(el("select", {id: "filter-kind"}), [["all", "every call"], ["any", "any problem"], ...KINDS]);
  app.append(el("h2", null, "Problems and timeline"));
  app.append(el("div", {class: "filters"},
    el("label", null, "session", sessionSelect), el("label", null, "tool", toolSelect),
    el("label", null, "problem", kindSelect)));
  const problemBox = el("div", {id: "problems"});
  const failedBox = el("div", {id: "failed-calls"});
  const timelineBox = el("div", {id: "timeline"});
  app.append(el("h3", null, "Problems"), problemBox, el("h3", null, "Failed calls"), failedBox,
    el("h3", null, "Timeline"), timelineBox);

  const matches = (item) =>
    (state.session === "all" || String(item.file) === state.session) &&
    (state.tool === "all" || item.tool === state.tool) &&
    (state.kind === "all" || (state.kind === "any" ? item.kinds.length > 0 : item.kinds.includes(state.kind)));

  function sessionLink(index, label) {
    const link = el("a", {href: "#session-" + index}, label);
    link.addEventListener("click", (event) => {
      event.preventDefault();
      sessionSelect.value = String(index);
      update({session: String(index), page: 0, problemPage: 0, failedPage: 0});
      timelineBox.scrollIntoView();
    });
    return link;
  }

  function jump(problem) {
    state.session = String(problem.file);
    state.tool = "all"; state.kind = "all";
    sessionSelect.value = state.session; toolSelect.value = "all"; kindSelect.value = "all";
    const rows = sessions[problem.file].rows;
    let at = problem.id !== null ? rows.findIndex(r => r.id === problem.id &&
      (problem.resultLine === undefined || r.resultLine === problem.resultLine)) : -1;
    if (at < 0) at = rows.findIndex(r => r.line === problem.line);
    state.target = at >= 0 ? rows[at] : null;
    state.page = at >= 0 ? Math.floor(at / PAGE_ROWS) : 0;
    draw();
    const row = timelineBox.querySelector("tr.target");
    if (row) row.scrollIntoView({block: "center"});
  }

  function pager(page, total, size, onPage, id) {
    const pages = Math.max(1, Math.ceil(total / size));
    const prev = el("button", {type: "button", disabled: page === 0}, "‹ previous");
    const next = el("button", {type: "button", disabled: page >= pages - 1}, "next ›");
    prev.addEventListener("click", () => onPage(page - 1));
    next.addEventListener("click", () => onPage(page + 1));
    return el("div", {class: "pager", id},
      el("span", {"data-key": "shown"}, `${count(total)} shown`), prev,
      el("span", null, `page ${page + 1} of ${pages}`), next);
  }

  function drawProblems() {
    const chosen = problems.filter(p => matches({file: p.file, tool: p.tool, kinds: [p.kind]}));
    const page = Math.min(state.problemPage, Math.max(0, Math.ceil(chosen.length / PROBLEM_ROWS) - 1));
    const rows = chosen.slice(page * PROBLEM_ROWS, (page + 1) * PROBLEM_ROWS).map(p => {
      const where = el("a", {href: "#timeline", class: "mono"}, `${sessions[p.file].path}:${p.line}`);
      where.addEventListener("click", (event) => { event.preventDefault(); jump(p); });
      return el("tr", {"data-kind": p.kind}, cell(el("span", {class: "tag " + p.kind}, KIND_LABEL[p.kind])),
        cell(where, {wrap: true}), cell(p.text, {wrap: true}));
    });
    problemBox.replaceChildren(
      chosen.length ? pager(page, chosen.length, PROBLEM_ROWS, (n) => update({problemPage: n}), "problem-pager")
        : el("p", {class: "muted"}, "no problems match these filters"),
      chosen.length ? table([{label: "kind"}, {label: "where"}, {label: "what"}], rows, {id: "problem-table"}) : "");
  }

  function drawFailures() {
    const chosen = failures.filter(f => matches({file: f.file, tool: f.tool, kinds: ["error"]}));
    const page = Math.min(state.failedPage, Math.max(0, Math.ceil(chosen.length / PROBLEM_ROWS) - 1));
    const rows = chosen.slice(page * PROBLEM_ROWS, (page + 1) * PROBLEM_ROWS).map(f => {
      const where = el("a", {href: "#timeline", class: "mono"}, `${sessions[f.file].path}:${f.line}`);
      where.addEventListener("click", (event) => { event.preventDefault(); jump(f); });
      return el("tr", {"data-line": f.line, "data-session": f.file}, cell(where, {wrap: true}),
        cell(f.tool, {wrap: true, key: "tool"}),
        cell(f.message || el("span", {class: "muted"}, "(no error text)"), {wrap: true, key: "message"}));
    });
    failedBox.replaceChildren(
      chosen.length ? pager(page, chosen.length, PROBLEM_ROWS, (n) => update({failedPage: n}), "failed-pager")
        : el("p", {class: "muted"}, failures.length ? "no failed calls match these filters" : "no call failed"),
      chosen.length ? table([{label: "where (result)"}, {label: "tool"}, {label: "message"}], rows, {id: "failed-table"}) : "");
  }

  function drawTimeline() {
    const chosen = sessions.filter(s => state.session === "all" || String(s.index) === state.session)
      .flatMap(s => s.rows.filter(matches));
    const page = Math.min(state.page, Math.max(0, Math.ceil(chosen.length / PAGE_ROWS) - 1));
    const flat = state.tool !== "all" || state.kind !== "all";
    const rows = [];
    let session = null;
    for (const r of chosen.slice(page * PAGE_ROWS, (page + 1) * PAGE_ROWS)) {
      if (r.file !== session) {
        session = r.file;
        rows.push(el("tr", {class: "session"}, el("td", {colspan: 7, class: "wrap"}, sessions[r.file].path)));
      }
      rows.push(timelineRow(r, flat));
    }
    const omitted = sessions.filter(s => state.session === "all" || String(s.index) === state.session)
      .reduce((n, s) => n + s.omitted, 0);
    timelineBox.replaceChildren(
      pager(page, chosen.length, PAGE_ROWS, (n) => update({page: n}), "timeline-pager"),
      omitted ? el("p", {class: "note"}, `${count(omitted)} answered calls past the first ${count(data.max_calls)} of a file went right and are counted above, not listed`) : "",
      table([{label: "line", num: true}, {label: "tool"}, {label: "id", narrow: true}, {label: "result", num: true},
             {label: "latency", num: true}, {label: "size", num: true, narrow: true}, {label: "status"}], rows, {id: "timeline-table"}));
  }

  function timelineRow(r, flat) {
    const indent = flat || !r.depth ? "" : "  ".repeat(r.depth - 1) + "└ ";
    const status = r.kinds.length ? r.kinds.map(k => el("span", {class: "tag " + k}, KIND_LABEL[k]))
      : (r.resultLine !== null ? [el("span", {class: "tag ok"}, "ok")] : []);
    const toolCell = [el("span", {class: "tree"}, indent), r.tool === null ? el("span", {class: "muted"}, "–") : r.tool];
    if (flat && r.parent !== null) toolCell.push(el("span", {class: "muted"}, " (under " + r.parent + ")"));
    const subagents = sessions.filter(s => s.agentId && sessions[r.file].file.subagents.some(
      a => a.rule === "agent-file" && a.parent_id === r.id) && agentOwnedBy(s, r));
    for (const s of subagents) toolCell.push(el("div", null, "sub-agent file: ", sessionLink(s.index, s.path)));
    return el("tr", {class: r === state.target ? "target" : null, "data-line": r.line, "data-session": r.file},
      cell(r.line, {num: true}), cell(toolCell, {wrap: true}), cell(r.id === null ? "" : r.id, {wrap: true, narrow: true}),
      cell(r.resultLine === null ? "–" : r.resultLine, {num: true}), cell(millis(r.latency), {num: true}),
      cell(bytesText(r.bytes), {num: true, narrow: true, key: "bytes"}),
      cell([...status, ...r.messages.map(m => el("span", {class: "msg wrap"}, m))]));
  }

  function agentOwnedBy(session, row) {
    return (data.agent_owners[session.index] || null) === row.file + ":" + row.id;
  }

  function draw() { drawProblems(); drawFailures(); drawTimeline(); }
  function update(change) { Object.assign(state, change); state.target = null; draw(); }
  sessionSelect.addEventListener("change", () => update({session: sessionSelect.value, page: 0, problemPage: 0, failedPage: 0}));
  toolSelect.addEventListener("change", () => update({tool: toolSelect.value, page: 0, problemPage: 0, failedPage: 0}));
  kindSelect.addEventListener("change", () => update({kind: kindSelect.value, page: 0, problemPage: 0, failedPage: 0}));
  draw();
  document.body.setAttribute("data-ready", "1");
}

renderReplay(readData());
