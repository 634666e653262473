/* toolsel's charts: plain SVG drawn with DOM calls (no library, nothing fetched).
   barChart: one row per label, one bar per series; lineChart: values over time. */
"use strict";

/* Each chart is drawn at its box's real width (one SVG unit = one pixel, so text keeps its
   size on a phone), and drawn again when the window is resized. */
const CHARTS = [];
let resizeTimer = null;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(layoutCharts, 150);
});

function layoutCharts() {
  for (let i = CHARTS.length - 1; i >= 0; i--) {
    const chart = CHARTS[i];
    if (!chart.box.isConnected) { CHARTS.splice(i, 1); continue; }
    const width = Math.max(260, Math.floor(chart.box.clientWidth - 20));
    if (width !== chart.width) {
      chart.width = width;
      const drawn = chart.draw(width);
      if (chart.svg) chart.svg.replaceWith(drawn); else chart.box.insertBefore(drawn, chart.box.children[1] || null);
      chart.svg = drawn;
    }
  }
}

function deferred(box, draw) {
  CHARTS.push({box, draw, width: 0, svg: null});
  queueMicrotask(layoutCharts);
  return box;
}

function shorten(text, max) {
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

/** rows: [{label, values: [number|null...]}]; series: [{name, cls}]; format: value -> text. */
function barChart(title, rows, series, format, key) {
  const box = el("figure", {class: "chart", "data-chart": key});
  box.append(el("h3", null, title));
  if (!rows.length) {
    box.append(el("p", {class: "muted"}, "nothing to draw"));
    return box;
  }
  if (series.length > 1) {
    box.append(el("div", {class: "legend"},
      series.map(s => el("span", null, el("span", {class: "swatch " + s.cls}), s.name))));
  }
  return deferred(box, (width) => {
    const CHART_WIDTH = width;
    const labelWidth = Math.min(170, Math.round(CHART_WIDTH * 0.38)), valueWidth = 64, rowHeight = 8 + 13 * series.length;
    const plotWidth = CHART_WIDTH - labelWidth - valueWidth;
    const max = Math.max(1e-9, ...rows.flatMap(r => r.values.filter(v => v !== null)));
    const height = rows.length * rowHeight + 4;
    const chart = svg("svg", {viewBox: `0 0 ${CHART_WIDTH} ${height}`, width: CHART_WIDTH, height, role: "img", "aria-label": title});
    rows.forEach((row, i) => {
      const top = i * rowHeight + 2;
      const label = svg("text", {x: labelWidth - 6, y: top + rowHeight / 2 + 4, "text-anchor": "end", class: "label"},
        shorten(row.label, Math.floor(labelWidth / 6.5)));
      label.append(svg("title", null, row.label));
      chart.append(label);
      row.values.forEach((value, j) => {
        if (value === null || value === undefined || (j > 0 && value === 0)) return;
        const y = top + 4 + j * 13;
        const width = Math.max(value > 0 ? 1 : 0, (value / max) * plotWidth);
        const bar = svg("rect", {x: labelWidth, y, width: width.toFixed(1), height: 11, rx: 2, class: series[j].cls});
        bar.append(svg("title", null, `${row.label} ${series[j].name}: ${format(value)}`));
        chart.append(bar);
        chart.append(svg("text", {x: labelWidth + width + 4, y: y + 10, "data-value": value}, format(value)));
      });
  });
  chart.append(svg("line", {x1: labelWidth, x2: labelWidth, y1: 0, y2: height, class: "axis"}));
  return chart;
  });
}

/** points: [{t: Date, values: [number|null...]}]; series: [{name, cls}]. */
function lineChart(title, points, series, format, key) {
  const box = el("figure", {class: "chart", "data-chart": key});
  box.append(el("h3", null, title));
  const values = points.flatMap(p => p.values.filter(v => v !== null && v !== undefined));
  if (!points.length || !values.length) {
    box.append(el("p", {class: "muted"}, "nothing recorded in this window"));
    return box;
  }
  box.append(el("div", {class: "legend"},
    series.map(s => el("span", null, el("span", {class: "swatch " + (s.cls === "bad" ? "bad" : "bar2")}), s.name))));
  return deferred(box, (width) => {
    const CHART_WIDTH = width;
    const left = 56, right = 12, top = 10, bottom = 24, height = 180;
    const plotWidth = CHART_WIDTH - left - right, plotHeight = height - top - bottom;
    const max = Math.max(1e-9, ...values);
    const x = i => left + (points.length === 1 ? plotWidth / 2 : (i / (points.length - 1)) * plotWidth);
    const y = v => top + plotHeight - (v / max) * plotHeight;
    const chart = svg("svg", {viewBox: `0 0 ${CHART_WIDTH} ${height}`, width: CHART_WIDTH, height, role: "img", "aria-label": title});
    for (const fraction of [0, 0.5, 1]) {
      const value = max * fraction;
      chart.append(svg("line", {x1: left, x2: CHART_WIDTH - right, y1: y(value), y2: y(value), class: "axis"}));
      chart.append(svg("text", {x: left - 6, y: y(value) + 4, "text-anchor": "end"}, format(value)));
    }
    const ticks = Math.min(points.length, Math.max(2, Math.floor(CHART_WIDTH / 90)));
    for (let k = 0; k < ticks; k++) {
      const i = ticks === 1 ? 0 : Math.round((k / (ticks - 1)) * (points.length - 1));
      chart.append(svg("text", {x: x(i), y: height - 6, "text-anchor": "middle"}, timeLabel(points[i].t, points)));
    }
    series.forEach((s, j) => {
      let path = "";
      points.forEach((p, i) => {
        const v = p.values[j];
        if (v === null || v === undefined) return;
        path += (path ? " L" : "M") + x(i).toFixed(1) + " " + y(v).toFixed(1);
        const dot = svg("circle", {cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 2.5, class: "dot " + s.cls});
        dot.append(svg("title", null, `${p.t.toISOString()} ${s.name}: ${format(v)}`));
        chart.append(dot);
      });
      if (path) chart.append(svg("path", {d: path, class: "line " + s.cls}));
  });
  return chart;
  });
}

function timeLabel(t, points) {
  const span = points.length > 1 ? points[points.length - 1].t - points[0].t : 0;
  const iso = t.toISOString();
  return span > 2 * 86400e3 ? iso.slice(5, 10) : iso.slice(11, 16);
}
