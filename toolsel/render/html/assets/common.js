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
