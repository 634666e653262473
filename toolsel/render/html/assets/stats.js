/* Usage charts from a `toolsel.stats` document (`stats --format html`, and the serve
   dashboard, which draws the same charts from /v1/analytics). */
"use strict";

const TOP_CHART_TOOLS = 20;

/** Draw `stats` (a toolsel.stats document) and, when given, `series`: [{t, stats}] windows. */
function drawStats(box, stats, series) {
  const tools = Object.entries(stats.tools);
  const calls = tools.reduce((n, [, t]) => n + t.calls, 0);
  const errors = tools.reduce((n, [, t]) => n + t.errors, 0);
  const answered = tools.reduce((n, [, t]) => n + t.answered, 0);
  box.append(el("div", {class: "cards", id: "stats-summary"},
    card("calls", calls, "calls"), card("answered", answered, "answered"),
    card("errors", errors, "errors", "bad"), card("tools used", tools.length, "tools"),
    stats.never_called === null ? "" : card("never used", stats.never_called.length, "never_called", "warn")));
  if (series) box.append(drawSeries(series, tools.map(([name]) => name)));
  const top = tools.slice(0, TOP_CHART_TOOLS);
  const more = tools.length - top.length;
  box.append(el("h2", null, "Per tool" + (more > 0 ? ` (the ${TOP_CHART_TOOLS} most called; every tool in the table)` : "")));
  box.append(el("div", {class: "charts"},
    barChart("Calls", top.map(([name, t]) => ({label: name, values: [t.calls, t.errors]})),
      [{name: "calls", cls: "bar"}, {name: "errors", cls: "bad"}], count, "calls"),
    barChart("Error rate (of answered calls)", top.filter(([, t]) => t.error_rate !== null)
      .map(([name, t]) => ({label: name, values: [t.error_rate]})), [{name: "error rate", cls: "bad"}], percent, "error-rate"),
    barChart("Latency", top.filter(([, t]) => t.median_latency_s !== null)
      .map(([name, t]) => ({label: name, values: [t.median_latency_s, t.p95_latency_s]})),
      [{name: "median", cls: "bar"}, {name: "p95", cls: "bar2"}], seconds, "latency"),
    barChart(`Result size (tokens, ${stats.token_method || "bytes/4"})`, top.filter(([, t]) => t.result_bytes)
      .map(([name, t]) => ({label: name, values: [t.result_bytes.median_tokens, t.result_bytes.p95_tokens]})),
      [{name: "median", cls: "bar"}, {name: "p95", cls: "bar2"}], count, "result-size")));
  box.append(table(
    [{label: "tool"}, {label: "calls", num: true}, {label: "open", num: true}, {label: "errors", num: true},
     {label: "error rate", num: true}, {label: "median", num: true}, {label: "p95", num: true},
     {label: "transcripts", num: true, narrow: true}, {label: "result p50", num: true, narrow: true},
     {label: "result p95", num: true, narrow: true}, {label: "result total", num: true, narrow: true}],
    tools.map(([name, t]) => el("tr", {"data-tool": name},
      cell(name, {wrap: true}), cell(count(t.calls), {num: true, key: "calls"}),
      cell(count(t.unanswered), {num: true, key: "unanswered"}), cell(count(t.errors), {num: true, key: "errors"}),
      cell(percent(t.error_rate), {num: true, key: "error_rate"}), cell(seconds(t.median_latency_s), {num: true, key: "median"}),
      cell(seconds(t.p95_latency_s), {num: true, key: "p95"}), cell(count(t.transcripts), {num: true, narrow: true}),
      ...sizeCells(t.result_bytes))),
    {id: "stats-tools"}));
  box.append(whyCallsFail(tools));
  box.append(el("h2", null, "Co-used pairs"));
  box.append(stats.co_used_pairs.length ? table([{label: "tools"}, {label: "together in", num: true}],
    stats.co_used_pairs.map(p => el("tr", null, cell(p.tools.join(" + "), {wrap: true}), cell(count(p.transcripts), {num: true}))),
    {id: "pairs"}) : el("p", {class: "muted"}, "no two tools were used in the same transcript or session"));
  box.append(el("h2", null, "Never used"));
  if (stats.never_called === null) {
    box.append(el("p", {class: "muted"}, "no registry was given, so there is no list of tools to compare with"));
  } else {
    box.append(stats.never_called.length
      ? el("div", {class: "pill-list", id: "never-used"}, stats.never_called.map(name => el("span", {class: "pill"}, name)))
      : el("p", {class: "muted", id: "never-used"}, "every registry tool was called"));
  }
  if (stats.unreadable_lines && stats.unreadable_lines.count) {
    box.append(el("p", {class: "note wrap"}, `${count(stats.unreadable_lines.count)} unreadable lines not counted (` +
      stats.unreadable_lines.files.map(f => `${f.path}: ${f.lines} from line ${f.first_line}`).join(", ") + ")"));
  }
  for (const note of stats.notes || []) box.append(el("p", {class: "note wrap"}, note));
}

/** A tool's median, p95 and total result size, as bytes and estimated tokens ("-" when not measured). */
function sizeCells(size) {
  const shown = (bytes, tokens) => `${bytesText(bytes)} (${count(tokens)} tok)`;
  if (!size) return ["-", "-", "-"].map(text => cell(text, {num: true, narrow: true}));
  return [
    cell(shown(size.median, size.median_tokens), {num: true, narrow: true, key: "result_median"}),
    cell(shown(size.p95, size.p95_tokens), {num: true, narrow: true, key: "result_p95"}),
    cell(shown(size.total, size.total_tokens), {num: true, narrow: true, key: "result_total"}),
  ];
}

/** Calls, error rate and latency over time, for every tool or the one chosen. */
function drawSeries(series, names) {
  const box = el("section", {id: "over-time"});
  const select = optionList(el("select", {id: "series-tool"}), [["", "every tool"], ...names.map(n => [n, n])]);
  const charts = el("div", {class: "charts"});
  const draw = () => {
    const tool = select.value;
    const points = series.map(w => {
      const rows = Object.entries(w.stats.tools).filter(([name]) => !tool || name === tool).map(([, t]) => t);
      const calls = rows.reduce((n, t) => n + t.calls, 0);
      const answered = rows.reduce((n, t) => n + t.answered, 0);
      const errors = rows.reduce((n, t) => n + t.errors, 0);
      const p50 = rows.length === 1 ? rows[0].median_latency_s : weighted(rows, "median_latency_s");
      const p95 = rows.length === 1 ? rows[0].p95_latency_s : Math.max(...rows.map(t => t.p95_latency_s ?? -1));
      return {t: new Date(w.t), calls, errors, rate: answered ? errors / answered : null, p50, p95: p95 >= 0 ? p95 : null};
    });
    charts.replaceChildren(
      lineChart("Calls over time", points.map(p => ({t: p.t, values: [p.calls, p.errors]})),
        [{name: "calls", cls: ""}, {name: "errors", cls: "bad"}], count, "calls-over-time"),
      lineChart("Error rate over time", points.map(p => ({t: p.t, values: [p.rate]})),
        [{name: "error rate", cls: "bad"}], percent, "errors-over-time"),
      lineChart("Latency over time", points.map(p => ({t: p.t, values: [p.p50, p.p95]})),
        [{name: tool ? "median" : "median (weighted)", cls: ""}, {name: tool ? "p95" : "highest p95", cls: "bad"}],
        seconds, "latency-over-time"));
  };
  select.addEventListener("change", draw);
  box.append(el("h2", null, "Over time"), el("div", {class: "filters"}, el("label", null, "tool", select)), charts);
  draw();
  return box;
}

function weighted(rows, key) {
  let total = 0, weight = 0;
  for (const t of rows) if (t[key] !== null) { total += t[key] * t.answered; weight += t.answered; }
  return weight ? total / weight : null;
}
