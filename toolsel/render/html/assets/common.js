/* toolsel page helpers. Every text reaches the page through textContent or an attribute
   set with setAttribute on a fixed name: nothing from the data is ever parsed as HTML. */
"use strict";


/** An element with attributes (fixed names only) and children (nodes or text). */
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function setAttrs(node, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") || key === "style" || key === "src" || key === "srcdoc") {
      throw new Error("refusing attribute " + key);  // never set from data
    }
    if (key === "href" && !/^#[\w-]*$/.test(String(value))) {
      throw new Error("refusing a link that leaves the page");
    }
    node.setAttribute(key, value === true ? "" : String(value));
  }
}

function readData() {
  return JSON.parse(document.getElementById("toolsel-data").textContent);
}

const NUMBER = new Intl.NumberFormat("en-US");
function count(n) { return n === null || n === undefined ? "–" : NUMBER.format(n); }
function percent(x) { return x === null || x === undefined ? "–" : (100 * x).toFixed(1) + "%"; }
function seconds(s) {
  if (s === null || s === undefined) return "–";
  if (s < 1) return Math.round(s * 1000) + " ms";
  return s.toFixed(s < 10 ? 2 : 1) + " s";
}
function millis(ms) { return ms === null || ms === undefined ? "–" : seconds(ms / 1000); }

function card(label, value, key, tone) {
  return el("div", {class: "card" + (tone && value ? " " + tone : "")},
    el("div", {class: "value", "data-key": key}, count(value)),
    el("div", {class: "label"}, label));
}

function table(columns, rows, attrs) {
  const head = el("tr", null, columns.map(c => el("th",
    {class: [c.num ? "num" : null, c.narrow ? "hide-narrow" : null].filter(Boolean).join(" ") || null}, c.label)));
  return el("div", {class: "scroll"}, el("table", attrs, el("thead", null, head), el("tbody", null, rows)));
}

function cell(value, opts) {
  const o = opts || {};
  const cls = [o.num ? "num" : null, o.wrap ? "wrap" : null, o.narrow ? "hide-narrow" : null].filter(Boolean).join(" ");
  return el("td", {class: cls || null, "data-key": o.key || null, title: o.title || null}, value);
}

function optionList(select, items) {
  for (const [value, label] of items) {
    const option = el("option", null, label);
    option.value = value;
    select.append(option);
  }
  return select;
}

function bytesText(bytes) {
  if (bytes === null || bytes === undefined) return "–";
  let value = bytes, unit = "B";
  for (const bigger of ["kB", "MB", "GB"]) {
    if (value < 1000) break;
    value /= 1000; unit = bigger;
  }
  return unit === "B" ? `${Math.round(value)} B` : `${value.toFixed(1)} ${unit}`;
}

/** "Why calls fail": each tool's most frequent error messages with their counts (the
    `top_errors` of a toolsel.stats document's `tools`, given as [name, tool] pairs), worst
    tool first. Messages come from transcripts: they reach the page as text only. */
function whyCallsFail(tools) {
  const box = el("section", {id: "why-fail"}, el("h2", null, "Why calls fail"));
  const failing = tools.filter(([, t]) => t.top_errors && t.top_errors.length)
    .sort(([a, x], [b, y]) => y.errors - x.errors || (a < b ? -1 : a > b ? 1 : 0));
  const errors = tools.reduce((n, [, t]) => n + t.errors, 0);
  if (!failing.length) {
    box.append(el("p", {class: "muted"}, errors
      ? `${count(errors)} failed calls, none with a message this source keeps`
      : "no call failed"));
    return box;
  }
  box.append(el("p", {class: "sub"},
    "the most frequent messages of each tool's failed calls; paths, ids and numbers are written <path>, <id>, <n>"));
  const rows = failing.flatMap(([name, t]) => t.top_errors.map((e, i) => el("tr", {"data-tool": name},
    i ? null : el("td", {class: "wrap", rowspan: t.top_errors.length},
      el("div", null, name), el("div", {class: "muted", "data-key": "errors"}, `${count(t.errors)} failed`)),
    cell(e.message || el("span", {class: "muted"}, "(no error text)"), {wrap: true, key: "message"}),
    cell(count(e.count), {num: true, key: "count"}))));
  box.append(table([{label: "tool"}, {label: "message"}, {label: "calls", num: true}], rows, {id: "why-fail-table"}));
  return box;
}
